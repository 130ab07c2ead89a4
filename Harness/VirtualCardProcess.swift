import Locking

#if canImport(Glibc)
import Glibc
#endif

/// One running `passkey-vcard` in a `PCSCHarness` reader: its state file and its log.
public final class VirtualCardProcess: Sendable {
    public let port: UInt16
    public let statePath: String
    public let logPath: String
    private let executable: String
    private let environment: [String: String]
    private let verbose: Bool
    /// Further `passkey-vcard` options (`--applets`, `--presence`, …).
    private let options: [String]
    /// The process while it runs, and where its log stood when it started.
    private let running = Locked<(process: ChildProcess?, logOffset: Int)>((nil, 0))

    init(executable: String, port: UInt16, statePath: String, logPath: String,
         environment: [String: String], verbose: Bool, options: [String] = []) throws(HarnessError) {
        self.executable = executable
        self.port = port
        self.statePath = statePath
        self.logPath = logPath
        self.environment = environment
        self.verbose = verbose
        self.options = options
        try start()
    }

    deinit { stop() }

    public var isRunning: Bool { running.withLock { $0.process != nil } }

    /// Starts the process again (same port, same state file) after `stop()` or `kill()`.
    public func start() throws(HarnessError) {
        try running.withLock { (running) throws(HarnessError) in
            guard running.process == nil else { return }
            running.logOffset = TextFile.size(logPath)
            var arguments = ["--host", "127.0.0.1", "--port", String(port), "--state", statePath]
            if verbose { arguments.append("--verbose") }
            arguments += options
            running.process = try ChildProcess.spawn(executable, arguments, environment: environment,
                                                     standardOutput: logPath, appending: true)
        }
    }

    /// Waits until the card reports its vpcd connection (pcscd then sees the
    /// card at its next poll, within about 400 ms).
    public func waitUntilConnected(timeout: Duration = .seconds(30)) throws(HarnessError) {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (process, logOffset) = running.withLock { $0 }
            let text = TextFile.tail(of: logPath, from: logOffset)
            if text.contains("connected to vpcd") { return }
            if let process, process.reap() != nil {
                running.withLock { $0.process = nil }
                throw HarnessError("passkey-vcard exited during start-up; its log:\n\(text)")
            }
            usleep(20_000)
        }
        throw HarnessError("passkey-vcard did not connect to vpcd on port \(port) within \(timeout); its log:\n"
                           + TextFile.tail(of: logPath, from: running.withLock { $0.logOffset }))
    }

    /// Stops the card cleanly (SIGTERM): for pcscd the card leaves the reader.
    public func stop() { takeProcess()?.terminate() }

    /// Kills the card (SIGKILL), as a card yanked out of the reader.
    public func kill() {
        guard let process = takeProcess() else { return }
        Glibc.kill(process.pid, SIGKILL)
        process.wait()
    }

    /// Everything the card has logged since it was first started.
    public var log: String { TextFile.read(logPath) }

    private func takeProcess() -> ChildProcess? {
        running.withLock { running in
            defer { running.process = nil }
            return running.process
        }
    }
}
