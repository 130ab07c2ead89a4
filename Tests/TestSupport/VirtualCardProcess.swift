import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One running `passkey-vcard`, its state file and its log.
public final class VirtualCardProcess: @unchecked Sendable {
    public let port: UInt16
    public let statePath: String
    public let logPath: String
    private let executable: String
    private let environment: [String: String]
    private let verbose: Bool
    private let lock = NSLock()
    private var pid: pid_t?
    private var logOffset = 0

    init(executable: String, port: UInt16, statePath: String, logPath: String,
         environment: [String: String], verbose: Bool) throws {
        self.executable = executable
        self.port = port
        self.statePath = statePath
        self.logPath = logPath
        self.environment = environment
        self.verbose = verbose
        try start()
    }

    deinit { stop() }

    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return pid != nil
    }

    /// Starts the process again (same port, same state file) after `stop()` or `kill()`.
    public func start() throws {
        lock.lock()
        defer { lock.unlock() }
        guard pid == nil else { return }
        let log = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard log >= 0 else { throw HarnessError("cannot create \(logPath): \(String(cString: strerror(errno)))") }
        defer { close(log) }
        logOffset = (try? FileManager.default.attributesOfItem(atPath: logPath)[.size] as? Int) ?? 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, log, 1)
        posix_spawn_file_actions_adddup2(&actions, log, 2)
        var arguments = [executable, "--host", "127.0.0.1", "--port", String(port), "--state", statePath]
        if verbose { arguments.append("--verbose") }
        pid = try PCSCHarness.spawn(arguments, environment: environment, actions: &actions)
    }

    /// Waits until the card reports its vpcd connection (pcscd then sees the
    /// card at its next poll, within about 400 ms).
    public func waitUntilConnected(timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = PCSCHarness.tail(of: logPath, from: logOffset)
            if text.contains("connected to vpcd") { return }
            lock.lock()
            let current = pid
            lock.unlock()
            if let current {
                var status: Int32 = 0
                if waitpid(current, &status, WNOHANG) == current {
                    lock.lock()
                    pid = nil
                    lock.unlock()
                    throw HarnessError("passkey-vcard exited during start-up; its log:\n\(text)")
                }
            }
            usleep(20_000)
        }
        throw HarnessError("passkey-vcard did not connect to vpcd on port \(port) within \(Int(timeout)) s; its log:\n"
                           + PCSCHarness.tail(of: logPath, from: logOffset))
    }

    /// Stops the card cleanly (SIGTERM): for pcscd the card leaves the reader.
    public func stop() {
        lock.lock()
        let current = pid
        pid = nil
        lock.unlock()
        if let current { PCSCHarness.terminate(current) }
    }

    /// Kills the card (SIGKILL), as a card yanked out of the reader.
    public func kill() {
        lock.lock()
        let current = pid
        pid = nil
        lock.unlock()
        guard let current else { return }
        Glibc.kill(current, SIGKILL)
        var status: Int32 = 0
        waitpid(current, &status, 0)
    }

    /// Everything the card has logged since it was last started.
    public var log: String { PCSCHarness.tail(of: logPath, from: 0) }
}
