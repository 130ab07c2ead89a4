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

/// A program the benchmark runs beside ours, listening on a Unix socket in
/// a temporary directory of its own: started there, waited for until its
/// socket takes a connection, stopped with SIGTERM and its directory removed.
final class PrivateDaemon {
    let directory: String
    let socketPath: String
    /// The benchmark's environment with the daemon's own variables: what its clients run with.
    let environment: [String: String]
    private let process: RunningProcess

    /// `setUp` gives the program's arguments and its variables (added to the
    /// benchmark's environment) from its directory and socket path.
    init(name: String, executable: String, socketName: String,
         setUp: (_ directory: String, _ socketPath: String) -> (arguments: [String], environment: [String: String])) throws(BenchError) {
        let directory = try BenchError.during("making a directory for \(name)") {
            try TemporaryDirectory.make(prefix: "passkey-bench-\(name)")
        }
        self.directory = directory
        let socketPath = directory + "/" + socketName
        self.socketPath = socketPath
        let (arguments, variables) = setUp(directory, socketPath)
        environment = ProcessEnvironment.current.merging(variables) { $1 }
        do throws(HarnessError) {
            process = try RunningProcess(executable, arguments, environment: environment, directory: directory, name: name)
        } catch {
            TemporaryDirectory.remove(directory)
            throw .stepFailed("starting \(name)", reason: error.description)
        }
        do throws(BenchError) {
            try BenchError.during("starting \(name)") {
                try process.waitUntil("\(name) listens on \(socketPath)", timeout: 15) { (try? LineClient(path: socketPath)) != nil }
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

/// OpenSSH's `ssh-agent` holding one Ed25519 key, on a private socket: the
/// floor for "a command-line program asks a per-user agent".
final class RunningSSHAgent {
    private let daemon: PrivateDaemon
    var environment: [String: String] { daemon.environment }

    init(sshAgent: String, sshAdd: String, sshKeygen: String) throws(BenchError) {
        // -D: stay in the foreground (no fork), so SIGTERM reaches it.
        daemon = try PrivateDaemon(name: "ssh-agent", executable: sshAgent, socketName: "agent.sock") { _, socketPath in
            (["-D", "-a", socketPath], ["SSH_AUTH_SOCK": socketPath])
        }
        do throws(BenchError) {
            let key = daemon.directory + "/id_ed25519"
            let (environment, directory) = (daemon.environment, daemon.directory)
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
            daemon.stop()
            throw error
        }
    }

    func stop() { daemon.stop() }
}

/// A process's command name (/proc/PID/comm, at most 15 bytes), e.g. `passkey-agent`.
private func commandName(of pid: pid_t) -> String? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/comm") else { return nil }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init)
}
