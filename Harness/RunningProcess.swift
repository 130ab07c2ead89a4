import FoundationEssentials
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// A program started in the background (an agent, a server, a daemon), with
/// its output going to files, stopped with a signal when the run is done.
public final class RunningProcess: Sendable {
    public let process: ChildProcess
    public let standardOutputPath: String
    public let standardErrorPath: String
    /// Set once the process has been reaped: waitpid answers only once.
    private let exitStatus = Locked<Int32?>(nil)

    public var pid: pid_t { process.pid }

    /// Starts `executable`; output goes to `<directory>/<name>.stdout` and
    /// `.stderr`, and `standardInput`, when given, is read from `<name>.stdin`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String],
                directory: String, name: String, standardInput: String? = nil) throws(HarnessError) {
        standardOutputPath = "\(directory)/\(name).stdout"
        standardErrorPath = "\(directory)/\(name).stderr"
        var inputPath = "/dev/null"
        if let standardInput {
            inputPath = "\(directory)/\(name).stdin"
            try TextFile.write(standardInput, to: inputPath)
        }
        process = try ChildProcess.spawn(executable, arguments, environment: environment, standardInput: inputPath,
                                         standardOutput: standardOutputPath, standardError: standardErrorPath)
    }

    deinit { if exitStatus.withLock({ $0 }) == nil { process.terminate(signal: SIGKILL) } }

    public var standardOutput: String { TextFile.read(standardOutputPath) }
    public var standardError: String { TextFile.read(standardErrorPath) }

    /// The exit status once the process has ended (128 + signal when killed), else nil.
    public func poll() -> Int32? {
        exitStatus.withLock { exitStatus in
            if exitStatus == nil { exitStatus = process.reap() }
            return exitStatus
        }
    }

    /// Waits up to `timeout` seconds for the process to end by itself.
    public func waitForExit(timeout: TimeInterval) -> Int32? {
        if let status = poll() { return status }
        process.awaitEnd(within: .seconds(timeout))
        return poll()
    }

    /// Sends `signal`, waits up to 10 s, then SIGKILL; returns the exit status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        if let status = poll() { return status }
        // Not under the lock: the wait may last seconds, and poll() must not block meanwhile.
        let status = process.terminate(signal: signal)
        return exitStatus.withLock { exitStatus in
            if exitStatus == nil { exitStatus = status }
            return exitStatus ?? status
        }
    }

    /// Waits until `condition` holds (polling), failing if the process dies or time runs out.
    public func waitUntil(_ what: String, timeout: TimeInterval = 20, _ condition: () -> Bool) throws(HarnessError) {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if condition() { return }
            if let status = poll() {
                throw HarnessError("the process exited (\(status)) before \(what); stderr:\n\(standardError)")
            }
            usleep(20_000)
        }
        throw HarnessError("timed out waiting for \(what); stderr:\n\(standardError)")
    }
}
