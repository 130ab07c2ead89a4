import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A program started in the background for a test (an agent, a server),
/// with its output going to files, stopped with a signal when the test is done.
public final class RunningProcess: @unchecked Sendable {
    public let pid: pid_t
    public let standardOutputPath: String
    public let standardErrorPath: String
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// Starts `executable`; output goes to files in `directory`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String],
                directory: String, name: String, standardInput: String? = nil) throws {
        standardOutputPath = "\(directory)/\(name).stdout"
        standardErrorPath = "\(directory)/\(name).stderr"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput {
            let inputPath = "\(directory)/\(name).stdin"
            try standardInput.write(toFile: inputPath, atomically: true, encoding: .utf8)
            posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, standardOutputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, standardErrorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        pid = try PCSCHarness.spawn([executable] + arguments, environment: environment, actions: &actions)
    }

    deinit { if exitStatus == nil { _ = stop(signal: SIGKILL) } }

    public var standardOutput: String { (try? String(contentsOfFile: standardOutputPath, encoding: .utf8)) ?? "" }
    public var standardError: String { (try? String(contentsOfFile: standardErrorPath, encoding: .utf8)) ?? "" }

    /// The exit status once the process has ended (128 + signal when killed), else nil.
    public func poll() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return exitStatus
    }

    /// Waits up to `timeout` for the process to end by itself.
    public func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let status = poll() { return status }
            usleep(10_000)
        }
        return poll()
    }

    /// Sends `signal`, waits up to 10 s, then SIGKILL; returns the exit status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        if let status = poll() { return status }
        kill(pid, signal)
        if let status = waitForExit(timeout: 10) { return status }
        kill(pid, SIGKILL)
        return waitForExit(timeout: 10) ?? -1
    }

    /// Waits until `condition` holds (polling), failing if the process dies or time runs out.
    public func waitUntil(_ what: String, timeout: TimeInterval = 20, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return }
            if let status = poll() {
                throw HarnessError("the process exited (\(status)) before \(what); stderr:\n\(standardError)")
            }
            usleep(20_000)
        }
        throw HarnessError("timed out waiting for \(what); stderr:\n\(standardError)")
    }
}
