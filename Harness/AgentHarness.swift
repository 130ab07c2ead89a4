import FoundationEssentials
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// A real `passkey-agent --foreground` with its own temporary home and XDG
/// directories, as a user's session would run it: what the tests talk to,
/// and what passkey-bench measures.
public final class AgentHarness: Sendable {
    public let home: String
    public let runtimeDirectory: String
    public let socketPath: String
    /// What the agent runs with, and what `passkey` needs to find this agent (and only this one).
    public let environment: [String: String]
    private let executable: String?
    private let running = Locked<RunningProcess?>(nil)

    /// The agent started last, while the harness holds it.
    public var process: RunningProcess? { running.withLock { $0 } }

    /// Makes the directories; `start()` runs the agent. `executable`: the
    /// `passkey-agent` to run (nil: the one built beside the running executable);
    /// `extraEnvironment` is added to the agent's environment (and so to `passkey`'s).
    public init(executable: String? = nil, extraEnvironment: [String: String] = [:]) throws(HarnessError) {
        self.executable = executable
        home = try TemporaryDirectory.make(prefix: "passkey-agent-test")
        runtimeDirectory = try TemporaryDirectory.directory(home + "/run")
        socketPath = runtimeDirectory + "/passkey-agent/agent.sock"
        var environment = ProcessInfo.processInfo.environment
        // Not the developer's session bus either: a test agent would take the
        // URL-scheme handler's name there (a test that wants a bus starts its own).
        // Nor the test process's private pcscd, which `PCSCHarness.shared()`
        // names in this process's environment once a smart-card test has
        // started it: an agent or CLI that did not ask for it would find
        // that test's card (a test wanting it passes it in `extraEnvironment`).
        for key in ["PASSKEY_AGENT_SOCK", "LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "DBUS_SESSION_BUS_ADDRESS",
                    "PCSCLITE_CSOCK_NAME"] { environment[key] = nil }
        environment["HOME"] = home
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory
        environment["XDG_DATA_HOME"] = home + "/data"
        environment["XDG_CONFIG_HOME"] = home + "/config"
        environment["XDG_STATE_HOME"] = home + "/state"
        self.environment = environment.merging(extraEnvironment) { _, extra in extra }
    }

    deinit {
        process?.stop(signal: SIGKILL)
        TemporaryDirectory.remove(home)
    }

    /// Starts `passkey-agent --foreground` and waits until it answers; its
    /// output goes to `<home>/agent.stdout` and `.stderr`.
    @discardableResult
    public func start(arguments: [String] = []) throws(HarnessError) -> RunningProcess {
        var path = executable ?? ""
        if executable == nil { path = try ProgramPaths.built("passkey-agent") }
        let agent = try RunningProcess(path, ["--foreground"] + arguments,
                                       environment: environment, directory: home, name: "agent")
        running.withLock { $0 = agent }
        try agent.waitUntil("the agent listens on \(socketPath)") { (try? LineClient(path: socketPath)) != nil }
        return agent
    }

    /// Runs `passkey` with this agent's environment.
    public func passkey(_ arguments: [String], standardInput: String? = nil,
                        extraEnvironment: [String: String] = [:], timeout: TimeInterval = 60) throws(HarnessError) -> ProcessResult {
        try ProcessResult.run(try ProgramPaths.built("passkey"), arguments, standardInput: standardInput,
                              environment: environment.merging(extraEnvironment) { _, extra in extra },
                              scratch: home, timeout: timeout)
    }

    public func connect() throws(HarnessError) -> LineClient { try LineClient(path: socketPath) }

    /// The mode bits of a path (`stat`, not following a final symlink).
    public static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }
}
