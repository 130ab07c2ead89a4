import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real `passkey-agent` process with its own temporary XDG directories.
public final class AgentHarness: @unchecked Sendable {
    public let home: String
    public let runtimeDirectory: String
    public let socketPath: String
    public let environment: [String: String]
    public private(set) var process: RunningProcess?

    /// Makes the directories; `start()` runs the agent.
    public init(extraEnvironment: [String: String] = [:]) throws {
        home = try TemporaryDirectory.make(prefix: "passkey-agent-test")
        runtimeDirectory = home + "/run"
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        socketPath = runtimeDirectory + "/passkey-agent/agent.sock"
        var environment = ProcessInfo.processInfo.environment
        for key in ["PASSKEY_AGENT_SOCK", "LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { environment[key] = nil }
        environment["HOME"] = home
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory
        environment["XDG_DATA_HOME"] = home + "/data"
        environment["XDG_CONFIG_HOME"] = home + "/config"
        environment["XDG_STATE_HOME"] = home + "/state"
        for (key, value) in extraEnvironment { environment[key] = value }
        self.environment = environment
    }

    deinit {
        process?.stop(signal: SIGKILL)
        try? FileManager.default.removeItem(atPath: home)
    }

    /// Starts `passkey-agent --foreground` and waits until it answers.
    @discardableResult
    public func start(arguments: [String] = []) throws -> RunningProcess {
        let agent = try RunningProcess(try PCSCHarness.productPath("passkey-agent"), ["--foreground"] + arguments,
                                       environment: environment, directory: home, name: "agent")
        process = agent
        try agent.waitUntil("the agent listens on \(socketPath)") { (try? LineClient(path: socketPath)) != nil }
        return agent
    }

    /// Runs `passkey` with this agent's environment.
    public func passkey(_ arguments: [String], standardInput: String? = nil,
                        extraEnvironment: [String: String] = [:], timeout: TimeInterval = 60) throws -> ProcessResult {
        var environment = self.environment
        for (key, value) in extraEnvironment { environment[key] = value }
        return try ProcessResult.run(try PCSCHarness.productPath("passkey"), arguments, standardInput: standardInput,
                                     environment: environment, scratch: home, timeout: timeout)
    }

    public func connect() throws -> LineClient { try LineClient(path: socketPath) }

    /// The mode bits of a path (`stat`, not following a final symlink).
    public static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }
}
