import StandardError
#if canImport(Glibc)
import Glibc
#endif

/// ssh-agent-style start: the parent prints where the agent listens and
/// returns to the shell; the child leaves the terminal session and logs to a file.
enum Background {
    /// Opens the log before forking, so a failure can still be told on the
    /// terminal, then detaches. The log is `<logDirectory>/agent.log`, the
    /// directory and its missing parents created 0700 (a fresh account has no
    /// `~/.local/state` yet); when that cannot be made, `agent.log` beside
    /// the socket, in the 0700 directory the agent has just made or checked.
    /// Only when neither can be opened does the agent log nowhere, and it says so first.
    /// The parent prints the socket and the agent's PID in `syntax`, as
    /// ssh-agent prints SSH_AUTH_SOCK and SSH_AGENT_PID (`-k` reads the PID back).
    static func detach(announcing socketPath: String, logDirectory: String, syntax: ShellSyntax) {
        let log = openLog(in: logDirectory) ?? openLog(in: parent(of: socketPath), createDirectory: false)
        if log == nil {
            StandardError.write("passkey-agent: cannot open a log file in \(logDirectory) or beside \(socketPath); logging nowhere\n")
        }
        let child = fork()
        if child < 0 {
            StandardError.write("passkey-agent: fork failed: \(String(cString: strerror(errno)))\n")
            exit(1)
        }
        if child > 0 {
            print(syntax.export("PASSKEY_AGENT_SOCK", socketPath))
            print(syntax.export("PASSKEY_AGENT_PID", String(child)))
            print("echo passkey-agent pid \(child);")
            exit(0)
        }
        setsid()
        let null = open("/dev/null", O_RDWR)
        dup2(null, 0)
        dup2(null, 1)
        dup2(log ?? null, 2)
        if null > 2 { close(null) }
        if let log, log > 2 { close(log) }
    }

    /// `agent.log` in `directory`, appended to, 0600; never through a symlink.
    private static func openLog(in directory: String, createDirectory: Bool = true) -> Int32? {
        if createDirectory { makeDirectories(directory) }
        let log = open(directory + "/agent.log", O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o600)
        return log >= 0 ? log : nil
    }

    /// `mkdir -p -m 700`: every missing component is created 0700; existing ones are left as they are.
    private static func makeDirectories(_ directory: String) {
        var info = stat()
        guard !directory.isEmpty, directory != "/", stat(directory, &info) != 0 else { return }
        makeDirectories(parent(of: directory))
        mkdir(directory, 0o700)
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
