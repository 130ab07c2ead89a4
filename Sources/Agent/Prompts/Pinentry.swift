import Hexadecimal

#if canImport(Glibc)
import Glibc
#endif

/// Asks for a PIN through pinentry (GnuPG's PIN dialog program), speaking its
/// Assuan protocol: SETTITLE, SETDESC, SETPROMPT, GETPIN. Used when there is
/// no terminal but a desktop session (e.g. a URL-scheme handler started from
/// a browser).
struct Pinentry {
    var program: String

    /// `$PASSKEY_PINENTRY`, else the first `pinentry` on PATH — only when a
    /// display is there to show it (a curses pinentry without a TTY fails).
    static func available(environment: [String: String]) -> Pinentry? {
        if let explicit = environment["PASSKEY_PINENTRY"], !explicit.isEmpty { return Pinentry(program: explicit) }
        guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil else { return nil }
        for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/pinentry"
            if access(candidate, X_OK) == 0 { return Pinentry(program: candidate) }
        }
        return nil
    }

    enum Outcome: Equatable {
        case pin(String)
        case cancelled
        case failed(String)
    }

    func getPIN(title: String, description: String, prompt: String, error: String? = nil) -> Outcome {
        guard let child = ChildProcess(program: program, arguments: []) else {
            return .failed("could not start \(program)")
        }
        defer { child.finish() }
        guard child.readLine()?.hasPrefix("OK") == true else { return .failed("\(program) did not greet") }
        var commands = ["SETTITLE \(Self.escape(title))", "SETDESC \(Self.escape(description))",
                        "SETPROMPT \(Self.escape(prompt))"]
        if let error { commands.append("SETERROR \(Self.escape(error))") }
        for command in commands {
            child.writeLine(command)
            guard child.readLine()?.hasPrefix("OK") == true else { return .failed("\(program) refused \(command.prefix(10))") }
        }
        child.writeLine("GETPIN")
        var pin: String?
        while let line = child.readLine() {
            if line.hasPrefix("D ") { pin = Self.unescape(String(line.dropFirst(2))) }
            else if line.hasPrefix("OK") { child.writeLine("BYE"); return .pin(pin ?? "") }
            else if line.hasPrefix("ERR") { return line.contains("cancel") || line.contains("83886179") ? .cancelled : .failed(line) }
        }
        return .failed("\(program) closed the connection")
    }

    /// Assuan percent-escapes %, CR and LF in arguments and data.
    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "%"), 0x0A, 0x0D:
                out += "%" + Hexadecimal.encode([byte], uppercase: true)
            default: out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }

    static func unescape(_ text: String) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
               let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
