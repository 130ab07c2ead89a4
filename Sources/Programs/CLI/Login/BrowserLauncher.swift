#if canImport(Glibc)
import Glibc
#endif

/// Opens a URL in the person's browser, the way they asked for: `$BROWSER`
/// first (a `:`-separated list of commands, each taking the URL as `%s` or
/// as its last argument), then `xdg-open`. The CLI does it, not the agent:
/// an agent started by systemd has no `$DISPLAY` and no `$BROWSER`.
///
/// The browser's own output goes to /dev/null, so it can never mix with
/// what `passkey` prints; the browser is not waited for.
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
            if spawn(words) { return words[0] }
        }
        return nil
    }

    private static func spawn(_ words: [String]) -> Bool {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let argv = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        return posix_spawnp(&child, words[0], &actions, nil, argv, environ) == 0
    }
}
