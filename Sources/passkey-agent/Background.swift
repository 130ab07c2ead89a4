import Settings
#if canImport(Glibc)
import Glibc
#endif

/// ssh-agent-style start: the parent prints where the agent listens and
/// returns to the shell; the child leaves the terminal session and logs to a file.
enum Background {
    static func detach(announcing socketPath: String, logDirectory: String) {
        let child = fork()
        if child < 0 {
            StandardError.write("passkey-agent: fork failed: \(String(cString: strerror(errno)))\n")
            exit(1)
        }
        if child > 0 {
            print("PASSKEY_AGENT_SOCK=\(socketPath); export PASSKEY_AGENT_SOCK;")
            print("echo passkey-agent pid \(child);")
            exit(0)
        }
        setsid()
        let null = open("/dev/null", O_RDWR)
        dup2(null, 0)
        dup2(null, 1)
        mkdir(logDirectory, 0o700)
        let log = open(logDirectory + "/agent.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        dup2(log >= 0 ? log : null, 2)
        if null > 2 { close(null) }
        if log > 2 { close(log) }
    }
}
