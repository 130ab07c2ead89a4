/// Opens a login's launch page in the person's browser, the way they asked
/// for: `$BROWSER` first (a `:`-separated list of commands, each taking the
/// address where `%s` stands, `%%` being a `%`, or else as its last
/// argument), then `xdg-open`. The CLI does it, not the agent: an agent
/// started by systemd has no `$DISPLAY` and no `$BROWSER`.
///
/// Only a launch page is ever opened, as `file://PATH`, never the
/// authorization URL: a browser's arguments are in /proc/PID/cmdline, which
/// every local user can read, and the URL's `state`, nonce and PKCE
/// challenge would let another user finish the login as themselves. The
/// page's path may be seen; its content only this user can read.
///
/// The browser is started as a `HelperProgram` (its output on /dev/null)
/// and not waited for.
enum BrowserLauncher {
    /// Whether this session can show a browser: a display (X11, Wayland).
    static func hasDisplay(_ environment: [String: String]) -> Bool {
        ["DISPLAY", "WAYLAND_DISPLAY", "MIR_SOCKET"].contains { !(environment[$0] ?? "").isEmpty }
    }

    /// Tries each command in turn on the launch page at `path` (absolute);
    /// the name of the one that started, or nil.
    static func open(launchPage path: String, environment: [String: String]) -> String? {
        guard path.hasPrefix("/") else { return nil }
        let address = fileURL(path)
        var commands = (environment["BROWSER"] ?? "").split(separator: ":").map(String.init)
        commands.append("xdg-open")
        for command in commands {
            guard let words = self.words(command, address: address) else { continue }
            if HelperProgram.start(words) != nil { return words[0] }
        }
        return nil
    }

    /// A `$BROWSER` entry's words with the address in: each `%s` replaced
    /// (also inside a word, as in `--app=%s`) and `%%` made `%`; without a
    /// `%s` the address is the last word. Nil for an empty entry.
    static func words(_ command: String, address: String) -> [String]? {
        var words = command.split(separator: " ").map(String.init)
        guard !words.isEmpty else { return nil }
        var placed = false
        words = words.map { word in
            guard word.contains("%") else { return word }
            var out = ""
            var rest = Substring(word)
            while let percent = rest.firstIndex(of: "%") {
                out += rest[..<percent]
                let next = rest.index(after: percent)
                if next < rest.endIndex, rest[next] == "s" {
                    out += address
                    placed = true
                    rest = rest[rest.index(after: next)...]
                } else if next < rest.endIndex, rest[next] == "%" {
                    out += "%"
                    rest = rest[rest.index(after: next)...]
                } else {
                    out += "%"
                    rest = rest[next...]
                }
            }
            return out + rest
        }
        if !placed { words.append(address) }
        return words
    }

    /// `file://` and the absolute path, percent-encoded (RFC 8089) so that a
    /// space or `#` in a directory name cannot cut the address short.
    static func fileURL(_ path: String) -> String {
        var out = "file://"
        for byte in path.utf8 {
            let plain = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || [UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~")].contains(byte)
            if plain {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let digits = String(byte, radix: 16, uppercase: true)
                out += "%" + (digits.count == 1 ? "0" : "") + digits
            }
        }
        return out
    }
}
