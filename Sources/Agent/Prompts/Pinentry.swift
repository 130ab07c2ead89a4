import Hexadecimal

#if canImport(Glibc)
import Glibc
#endif

/// Asks the person through pinentry (GnuPG's PIN and confirmation dialog
/// program), speaking its Assuan protocol: SETTITLE, SETDESC, SETPROMPT,
/// GETPIN for a PIN; SETOK, SETCANCEL, CONFIRM for a yes/no question (the
/// way gpg-agent confirms each use of an ssh key marked for confirmation).
/// Used where there is no terminal but a desktop session: a URL-scheme
/// handler started by a browser, or the agent answering a D-Bus request.
public struct Pinentry: Sendable {
    public var program: String

    public init(program: String) { self.program = program }

    /// `$PASSKEY_PINENTRY`, else the first `pinentry` on PATH — only when a
    /// display is there to show it (a curses pinentry without a TTY fails).
    public static func available(environment: [String: String]) -> Pinentry? {
        if let explicit = environment["PASSKEY_PINENTRY"], !explicit.isEmpty { return Pinentry(program: explicit) }
        guard !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty else { return nil }
        for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/pinentry"
            if access(candidate, X_OK) == 0 { return Pinentry(program: candidate) }
        }
        return nil
    }

    public enum Outcome: Equatable, Sendable {
        case pin(String)
        case cancelled
        case failed(String)
    }

    public enum Answer: Equatable, Sendable {
        case allowed
        case declined
        case failed(String)
    }

    public func getPIN(title: String, description: String, prompt: String, error: String? = nil) -> Outcome {
        guard let child = PipedProcess(program: program, arguments: []) else {
            return .failed("could not start \(program)")
        }
        defer { child.finish() }
        var commands = ["SETTITLE \(Self.escape(title))", "SETDESC \(Self.escape(description))",
                        "SETPROMPT \(Self.escape(prompt))"]
        if let error { commands.append("SETERROR \(Self.escape(error))") }
        if let failure = Self.prepare(child, program: program, commands: commands) { return .failed(failure) }
        child.writeLine("GETPIN")
        var pin: String?
        while let line = child.readLine() {
            if line.hasPrefix("D ") { pin = Self.unescape(String(line.dropFirst(2))) }
            else if line.hasPrefix("OK") { child.writeLine("BYE"); return .pin(pin ?? "") }
            else if line.hasPrefix("ERR") { return Self.isCancel(line) ? .cancelled : .failed(line) }
        }
        return .failed("\(program) closed the connection")
    }

    /// A yes/no question: `allowed` only for pinentry's OK to CONFIRM; the
    /// person's cancel (or "not confirmed") is `declined`; anything else
    /// (no program, a broken conversation) `failed`, which callers treat as
    /// a refusal too.
    public func confirm(title: String, description: String, allow: String, deny: String) -> Answer {
        guard let child = PipedProcess(program: program, arguments: []) else {
            return .failed("could not start \(program)")
        }
        defer { child.finish() }
        let commands = ["SETTITLE \(Self.escape(title))", "SETDESC \(Self.escape(description))",
                        "SETOK \(Self.escape(allow))", "SETCANCEL \(Self.escape(deny))"]
        if let failure = Self.prepare(child, program: program, commands: commands) { return .failed(failure) }
        child.writeLine("CONFIRM")
        while let line = child.readLine() {
            if line.hasPrefix("OK") { child.writeLine("BYE"); return .allowed }
            if line.hasPrefix("ERR") { return Self.isCancel(line) ? .declined : .failed(line) }
            // Status lines (S …) and comments (#) are informational.
        }
        return .failed("\(program) closed the connection")
    }

    /// `getPIN` on a thread of its own: a person reading the dialog must not
    /// hold one of the cooperative pool's threads (two on a 2-core machine).
    public func pin(title: String, description: String, prompt: String, error: String? = nil) async -> Outcome {
        await OwnThread.run(failed: .failed("no thread could be started for \(program)")) {
            self.getPIN(title: title, description: description, prompt: prompt, error: error)
        }
    }

    /// `confirm` on a thread of its own, for the same reason.
    public func confirmation(title: String, description: String, allow: String, deny: String) async -> Answer {
        await OwnThread.run(failed: .failed("no thread could be started for \(program)")) {
            self.confirm(title: title, description: description, allow: allow, deny: deny)
        }
    }

    /// The greeting, then each command answered OK; the failure, if any.
    private static func prepare(_ child: PipedProcess, program: String, commands: [String]) -> String? {
        guard child.readLine()?.hasPrefix("OK") == true else { return "\(program) did not greet" }
        for command in commands {
            child.writeLine(command)
            guard child.readLine()?.hasPrefix("OK") == true else { return "\(program) refused \(command.prefix(10))" }
        }
        return nil
    }

    /// GPG_ERR_CANCELED (83886179) and GPG_ERR_NOT_CONFIRMED (83886194) are
    /// the person's own answers.
    private static func isCancel(_ line: String) -> Bool {
        line.contains("cancel") || line.contains("Cancel") || line.contains("83886179") || line.contains("83886194")
    }

    /// Assuan percent-escapes %, CR and LF in arguments and data; other
    /// bytes (UTF-8 included) pass as they are.
    public static func escape(_ text: String) -> String {
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "%"), 0x0A, 0x0D:
                out += Array(("%" + Hexadecimal.encode([byte], uppercase: true)).utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func unescape(_ text: String) -> String {
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
