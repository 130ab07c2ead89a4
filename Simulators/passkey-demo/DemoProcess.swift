import AgentProtocol
import CSpawn

#if canImport(Glibc)
import Glibc
#endif

/// A program the demo starts with `posix_spawn` (no shell), its output in
/// files of the demo's scratch directory — as the tests' harness starts
/// programs (Harness/ChildProcess.swift), which the demo cannot link.
/// Waiting polls without blocking a thread: the devserver's handlers run on
/// the same two-thread pool.
final class DemoProcess: Sendable {
    let pid: pid_t
    let standardOutputPath: String
    let standardErrorPath: String

    /// Starts `executable` with `arguments` and exactly `environment`;
    /// `standardInput` (if given) is written to a file the child reads.
    init(_ executable: String, _ arguments: [String], environment: [String: String],
         standardInput: String? = nil, files prefix: String, listeningSocket: Int32? = nil) throws(AgentError) {
        standardOutputPath = prefix + ".stdout"
        standardErrorPath = prefix + ".stderr"
        var inputPath = "/dev/null"
        if let standardInput {
            inputPath = prefix + ".stdin"
            try DemoFiles.write(standardInput, to: inputPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, standardErrorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // A socket-activated daemon's listening socket is its fd 3 (dup2 clears close-on-exec).
        if let listeningSocket { posix_spawn_file_actions_adddup2(&actions, listeningSocket, 3) }
        posix_spawn_file_actions_addclosefrom_np(&actions, listeningSocket == nil ? 3 : 4)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // Default signal handling and nothing blocked, whatever this process set.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw AgentError(.internal, "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        self.pid = pid
    }

    /// A process the demo let go of while it ran (a chapter failed midway) is killed, not left behind.
    deinit {
        guard poll() == nil else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    var standardOutput: String { DemoFiles.read(standardOutputPath) }
    var standardError: String { DemoFiles.read(standardErrorPath) }

    /// The exit status once it ended (reaped then), nil while it runs.
    func poll() -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return result < 0 ? -1 : nil }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// Waits up to `timeout` for the end; kills the process when it is late.
    func wait(timeout: Duration = .seconds(60), what: String) async throws(AgentError) -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = poll() { return status }
            try? await Task.sleep(for: .milliseconds(5))
        }
        stop(signal: SIGKILL)
        throw AgentError(.timeout, "\(what) did not finish within \(timeout)")
    }

    /// Waits until `condition` holds; fails if the process ends first.
    func waitUntil(_ what: String, timeout: Duration = .seconds(30), _ condition: () -> Bool) async throws(AgentError) {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return }
            if let status = poll() {
                throw AgentError(.internal, "the process ended (\(status)) before \(what):\n\(standardError)")
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        throw AgentError(.timeout, "timed out waiting for \(what):\n\(standardError)")
    }

    /// SIGTERM (or `signal`), then SIGKILL after two seconds; reaps it.
    func stop(signal: Int32 = SIGTERM) {
        guard poll() == nil else { return }
        kill(pid, signal)
        for _ in 0..<200 {
            if poll() != nil { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}
