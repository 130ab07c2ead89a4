import FoundationEssentials
import Settings

#if canImport(Glibc)
import Glibc
#endif

/// The agent the socket and CLI groups talk to.
struct AgentEndpoint {
    let socketPath: String
    /// What `passkey` needs to find this agent (and only this one).
    let environment: [String: String]
    /// Its process, for reading the CPU time it spends (nil: not known).
    let pid: pid_t?

    /// An agent someone else started (`--agent-socket`), e.g. under `perf record`.
    static func existing(socketPath: String) throws(BenchError) -> AgentEndpoint {
        var environment = ProcessEnvironment.current
        environment["PASSKEY_AGENT_SOCK"] = socketPath
        // Under socket activation the socket's owner is systemd: only a passkey-agent's pid is kept.
        let pid = try RawSocketClient(path: socketPath).peerProcess.flatMap { pid in
            commandName(of: pid) == "passkey-agent" ? pid : nil
        }
        return AgentEndpoint(socketPath: socketPath, environment: environment, pid: pid)
    }
}

/// A real `passkey-agent --foreground` with temporary XDG directories, as a
/// user's session would run it (default log level, default limits).
final class RunningPasskeyAgent {
    let scratch: ScratchDirectory
    let endpoint: AgentEndpoint
    private let process: ChildProcess

    /// `extraEnvironment` is added to the agent's (and so to `endpoint.environment`,
    /// which the CLIs run with), e.g. `PCSCLITE_CSOCK_NAME` for a private pcscd.
    init(executable: String, extraEnvironment: [String: String] = [:]) throws(BenchError) {
        scratch = try ScratchDirectory(prefix: "passkey-bench-agent")
        let runtime = try scratch.directory("run")
        var environment = ProcessEnvironment.current
        for key in ["PASSKEY_AGENT_SOCK", "LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { environment[key] = nil }
        environment["XDG_RUNTIME_DIR"] = runtime
        environment["XDG_DATA_HOME"] = try scratch.directory("data")
        environment["XDG_CONFIG_HOME"] = try scratch.directory("config")
        environment["XDG_STATE_HOME"] = try scratch.directory("state")
        environment.merge(extraEnvironment) { _, extra in extra }
        let socketPath = runtime + "/passkey-agent/agent.sock"
        process = try ChildProcess.spawn(executable, ["--foreground"], environment: environment,
                                         output: scratch.path + "/agent.log")
        endpoint = AgentEndpoint(socketPath: socketPath, environment: environment, pid: process.pid)
        guard waitForSocket(socketPath, from: process) else {
            process.stop()
            throw .daemonDidNotStart("passkey-agent", log: scratch.readText("agent.log"))
        }
    }

    /// SIGTERM, as systemd stops it.
    func stop() { process.stop() }
}

/// OpenSSH's `ssh-agent` holding one Ed25519 key, on a private socket: the
/// floor for "a command-line program asks a per-user agent".
final class RunningSSHAgent {
    let scratch: ScratchDirectory
    let environment: [String: String]
    private let process: ChildProcess

    init(sshAgent: String, sshAdd: String, sshKeygen: String) throws(BenchError) {
        scratch = try ScratchDirectory(prefix: "passkey-bench-ssh")
        let socketPath = scratch.path + "/agent.sock"
        var environment = ProcessEnvironment.current
        environment["SSH_AUTH_SOCK"] = socketPath
        self.environment = environment
        // -D: stay in the foreground (no fork), so SIGTERM reaches it.
        process = try ChildProcess.spawn(sshAgent, ["-D", "-a", socketPath], environment: environment,
                                         output: scratch.path + "/ssh-agent.log")
        guard waitForSocket(socketPath, from: process) else {
            process.stop()
            throw .daemonDidNotStart("ssh-agent", log: scratch.readText("ssh-agent.log"))
        }
        do throws(BenchError) {
            let key = scratch.path + "/id_ed25519"
            let generated = try ChildProcess.spawn(sshKeygen, ["-q", "-t", "ed25519", "-N", "", "-C", "passkey-bench", "-f", key],
                                                   environment: environment).wait()
            let added = try ChildProcess.spawn(sshAdd, ["-q", key], environment: environment).wait()
            guard generated == 0, added == 0 else {
                throw .stepFailed("loading a key into ssh-agent", reason: "ssh-keygen exited \(generated), ssh-add exited \(added)")
            }
        } catch {
            process.stop()
            throw error
        }
    }

    func stop() { process.stop() }
}

/// A process's command name (/proc/PID/comm, at most 15 bytes), e.g. `passkey-agent`.
private func commandName(of pid: pid_t) -> String? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/comm") else { return nil }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init)
}

/// Polls until something accepts connections at `path` (at most 15 s);
/// false at once when `process` has exited (its log says why).
private func waitForSocket(_ path: String, from process: ChildProcess) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(15)
    while clock.now < deadline {
        if (try? RawSocketClient(path: path)) != nil { return true }
        if process.hasExited() { return false }
        usleep(20_000)
    }
    return false
}
