import FoundationEssentials
import Harness
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
        let pid = try LineClient.agent(at: socketPath).peerProcess.flatMap { pid in
            commandName(of: pid) == "passkey-agent" ? pid : nil
        }
        return AgentEndpoint(socketPath: socketPath, environment: environment, pid: pid)
    }
}

/// A real `passkey-agent --foreground` with temporary XDG directories (the
/// harness's `AgentHarness`), as a user's session would run it (default log
/// level, default limits).
final class RunningPasskeyAgent {
    let harness: AgentHarness
    let endpoint: AgentEndpoint

    /// `extraEnvironment` is added to the agent's (and so to `endpoint.environment`,
    /// which the CLIs run with), e.g. `PCSCLITE_CSOCK_NAME` for a private pcscd.
    init(executable: String, extraEnvironment: [String: String] = [:]) throws(BenchError) {
        let executable = try Programs.built(executable)
        harness = try BenchError.during("starting passkey-agent") {
            let harness = try AgentHarness(executable: executable, extraEnvironment: extraEnvironment)
            try harness.start()
            return harness
        }
        endpoint = AgentEndpoint(socketPath: harness.socketPath, environment: harness.environment, pid: harness.process?.pid)
    }

    /// SIGTERM, as systemd stops it.
    func stop() { harness.process?.stop() }
}

/// OpenSSH's `ssh-agent` holding one Ed25519 key, on a private socket: the
/// floor for "a command-line program asks a per-user agent".
final class RunningSSHAgent {
    let directory: String
    let environment: [String: String]
    private let process: RunningProcess

    init(sshAgent: String, sshAdd: String, sshKeygen: String) throws(BenchError) {
        let directory = try BenchError.during("making a directory for ssh-agent") {
            try TemporaryDirectory.make(prefix: "passkey-bench-ssh")
        }
        self.directory = directory
        let socketPath = directory + "/agent.sock"
        var environment = ProcessEnvironment.current
        environment["SSH_AUTH_SOCK"] = socketPath
        self.environment = environment
        // -D: stay in the foreground (no fork), so SIGTERM reaches it.
        do throws(HarnessError) {
            process = try RunningProcess(sshAgent, ["-D", "-a", socketPath], environment: environment,
                                         directory: directory, name: "ssh-agent")
        } catch {
            TemporaryDirectory.remove(directory)
            throw .stepFailed("starting ssh-agent", reason: error.description)
        }
        do throws(BenchError) {
            try BenchError.during("starting ssh-agent") {
                try process.waitUntil("ssh-agent listens on \(socketPath)", timeout: 15) { (try? LineClient(path: socketPath)) != nil }
            }
            let key = directory + "/id_ed25519"
            let (generated, added) = try BenchError.during("loading a key into ssh-agent") {
                (try ProcessResult.run(sshKeygen, ["-q", "-t", "ed25519", "-N", "", "-C", "passkey-bench", "-f", key],
                                       standardInput: nil, environment: environment, scratch: directory, timeout: 30).status,
                 try ProcessResult.run(sshAdd, ["-q", key], standardInput: nil, environment: environment,
                                       scratch: directory, timeout: 30).status)
            }
            guard generated == 0, added == 0 else {
                throw .stepFailed("loading a key into ssh-agent", reason: "ssh-keygen exited \(generated), ssh-add exited \(added)")
            }
        } catch {
            stop()
            throw error
        }
    }

    func stop() {
        process.stop()
        TemporaryDirectory.remove(directory)
    }
}

/// `passkey-bench-epoll`, the floor for a socket round trip: a minimal
/// single-threaded C epoll server that answers each line with one fixed
/// line, on a private socket.
final class RunningEpollFloor {
    let directory: String
    let socketPath: String
    private let process: RunningProcess

    /// `answer`: the line it answers with (without its newline), e.g. the agent's own answer, so both send as many bytes.
    init(executable: String, answer: String) throws(BenchError) {
        let executable = try Programs.built(executable)
        let directory = try BenchError.during("making a directory for passkey-bench-epoll") {
            try TemporaryDirectory.make(prefix: "passkey-bench-epoll")
        }
        self.directory = directory
        let socketPath = directory + "/floor.sock"
        self.socketPath = socketPath
        do throws(HarnessError) {
            process = try RunningProcess(executable, [socketPath, answer], environment: ProcessEnvironment.current,
                                         directory: directory, name: "passkey-bench-epoll")
        } catch {
            TemporaryDirectory.remove(directory)
            throw .stepFailed("starting passkey-bench-epoll", reason: error.description)
        }
        do throws(BenchError) {
            try BenchError.during("starting passkey-bench-epoll") {
                try process.waitUntil("passkey-bench-epoll listens on \(socketPath)", timeout: 15) { (try? LineClient(path: socketPath)) != nil }
            }
        } catch {
            stop()
            throw error
        }
    }

    func stop() {
        process.stop()
        TemporaryDirectory.remove(directory)
    }
}

/// A process's command name (/proc/PID/comm, at most 15 bytes), e.g. `passkey-agent`.
private func commandName(of pid: pid_t) -> String? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/comm") else { return nil }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init)
}
