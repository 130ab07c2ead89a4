import CSpawn
#if canImport(Glibc)
import Glibc
#endif

/// A program the CLI starts beside itself (a browser, xdg-mime,
/// update-desktop-database) with stdin, stdout and stderr on /dev/null, so
/// its output can never mix with what `passkey` prints. posix_spawnp keeps
/// the CLI free of Foundation's Process.
enum HelperProgram {
    /// Starts `words` (looked up on PATH); its pid, or nil when it could not start.
    static func start(_ words: [String]) -> pid_t? {
        guard let program = words.first else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        // Nothing else of ours (the agent connection, a login's listener): a browser lives long.
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        let argv = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        return posix_spawnp(&child, program, &actions, nil, argv, environ) == 0 ? child : nil
    }

    /// Runs `words` to the end; whether it exited with status 0.
    static func run(_ words: [String]) -> Bool {
        guard let child = start(words) else { return false }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        return status == 0
    }
}
