/// Opens a URL in the person's browser, the way they asked for: `$BROWSER`
/// first (a `:`-separated list of commands, each taking the URL as `%s` or
/// as its last argument), then `xdg-open`. The CLI does it, not the agent:
/// an agent started by systemd has no `$DISPLAY` and no `$BROWSER`.
///
/// The browser is started as a `HelperProgram` (its output on /dev/null)
/// and not waited for.
enum BrowserLauncher {
    /// Whether this session can show a browser: a display (X11, Wayland).
    static func hasDisplay(_ environment: [String: String]) -> Bool {
        ["DISPLAY", "WAYLAND_DISPLAY", "MIR_SOCKET"].contains { !(environment[$0] ?? "").isEmpty }
    }

    /// Tries each command in turn; the name of the one that started, or nil.
    static func open(_ url: String, environment: [String: String]) -> String? {
        var commands = (environment["BROWSER"] ?? "").split(separator: ":").map(String.init)
        commands.append("xdg-open")
        for command in commands {
            var words = command.split(separator: " ").map(String.init)
            guard !words.isEmpty else { continue }
            if words.contains("%s") {
                words = words.map { $0 == "%s" ? url : $0 }
            } else {
                words.append(url)
            }
            if HelperProgram.start(words) != nil { return words[0] }
        }
        return nil
    }
}
