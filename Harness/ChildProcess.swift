import CSpawn
#if canImport(Glibc)
import Glibc
#endif

/// A program started with `posix_spawn` (no shell): the one way the tests and
/// passkey-bench start agents, daemons, cards and command lines.
///
/// Children start with default signal handling and nothing blocked, whatever
/// the test runner or the benchmark blocks or ignores, so SIGTERM stops them.
public struct ChildProcess: Sendable {
    public let pid: pid_t

    /// Starts `executable` with `arguments` and exactly `environment`.
    /// - `standardInput`: a file to read (default /dev/null).
    /// - `standardOutput`: a file (created 0600, truncated or, with `appending`,
    ///   appended to; default /dev/null); `standardError` goes to its own file
    ///   or, when nil, to the same place.
    /// - `listeningSocket` becomes the child's fd 3, as systemd hands a socket
    ///   to a socket-activated daemon (it must not already be fd 3).
    public static func spawn(_ executable: String, _ arguments: [String], environment: [String: String],
                             standardInput: String = "/dev/null", standardOutput: String = "/dev/null",
                             standardError: String? = nil, appending: Bool = false,
                             listeningSocket: Int32? = nil) throws(HarnessError) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let outputFlags = O_WRONLY | O_CREAT | (appending ? O_APPEND : O_TRUNC)
        posix_spawn_file_actions_addopen(&actions, 0, standardInput, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput, outputFlags, 0o600)
        if let standardError {
            posix_spawn_file_actions_addopen(&actions, 2, standardError, outputFlags, 0o600)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        // dup2 onto 3 clears close-on-exec.
        if let listeningSocket { posix_spawn_file_actions_adddup2(&actions, listeningSocket, 3) }
        // Nothing else of the test process: a socket NIO accepted (without
        // close-on-exec) for one test must not stay open in another test's
        // child after the listener closed it.
        posix_spawn_file_actions_addclosefrom_np(&actions, listeningSocket == nil ? 3 : 4)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw HarnessError("cannot start \(executable): \(String(cString: strerror(status)))") }
        return ChildProcess(pid: pid)
    }

    /// The exit status if the process has ended (it is then reaped), nil while
    /// it runs; -1 when it was already reaped elsewhere.
    public func reap() -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid { return Self.exitStatus(status) }
        return result < 0 && errno == ECHILD ? -1 : nil
    }

    /// Waits for the process to end: its exit status.
    @discardableResult
    public func wait() -> Int32 { waitWithUsage().status }

    /// Waits for the process to end: its exit status and the CPU time
    /// (user + system, all threads) it used, from wait4(2).
    public func waitWithUsage() -> (status: Int32, cpuNanoseconds: Int64) {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        func nanoseconds(_ time: timeval) -> Int64 { Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_usec) * 1_000 }
        return (Self.exitStatus(status), nanoseconds(usage.ru_utime) + nanoseconds(usage.ru_stime))
    }

    /// Sends `signal`, waits up to `grace` for the process to end, then kills
    /// it (SIGKILL), so a hung child cannot hang the run; reaps it and returns
    /// its exit status.
    @discardableResult
    public func terminate(signal: Int32 = SIGTERM, grace: Duration = .seconds(10)) -> Int32 {
        kill(pid, signal)
        if let status = waitForExit(within: grace) { return status }
        kill(pid, SIGKILL)
        return wait()
    }

    /// Waits until the process ends, for at most `timeout`; its exit status
    /// (it is then reaped), or nil if it still runs.
    public func waitForExit(within timeout: Duration) -> Int32? {
        awaitEnd(within: timeout)
        return reap()
    }

    /// Blocks until the process has ended (not reaping it) or `timeout` has
    /// passed; whether it ended. It waits on a pidfd, which becomes readable
    /// when the process ends: no polling.
    @discardableResult
    public func awaitEnd(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        let descriptor = pidfd_open(pid, 0)
        guard descriptor >= 0 else {
            // No such process: reaped already, so it has ended.
            if errno == ESRCH { return true }
            // No pidfd to be had (out of descriptors, a sandbox): look every 10 ms instead.
            while !hasEnded {
                guard ContinuousClock.now < deadline else { return false }
                usleep(10_000)
            }
            return true
        }
        defer { close(descriptor) }
        while true {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let left = deadline - ContinuousClock.now
            // Rounded up, so the wait never ends before the deadline; at most Int32.max ms (poll's own bound).
            let milliseconds = left <= .zero ? 0 : Int32(min(Double(Int32.max), (left / .milliseconds(1)).rounded(.up)))
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            if ready == 0 || (ready < 0 && errno != EINTR) { return false }
        }
    }

    /// Whether the process has ended, without reaping it (waitid with WNOWAIT).
    private var hasEnded: Bool {
        var info = siginfo_t()
        let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        // Ended: a zombie (si_pid set) or already reaped (ECHILD).
        return result == 0 ? info._sifields._sigchld.si_pid == pid : errno == ECHILD
    }

    /// The exit status of a wait status: the code it exited with, or 128 + the
    /// signal that ended it, as a shell reports it (WIFEXITED, WEXITSTATUS and
    /// WTERMSIG are macros Swift does not import).
    public static func exitStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
