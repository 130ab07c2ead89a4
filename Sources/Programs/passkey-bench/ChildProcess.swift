#if canImport(Glibc)
import Glibc
#endif

/// A program the benchmark starts with `posix_spawn` (no shell): the agents
/// it measures and the CLIs it times. Standard input is /dev/null; standard
/// output and error go to /dev/null or to a log file.
struct ChildProcess {
    let pid: pid_t

    /// Starts `path` with `arguments` and exactly `environment`, with default
    /// signal handling and nothing blocked. `listeningSocket`, when given,
    /// becomes the child's fd 3, as systemd hands a socket to a socket-activated daemon.
    static func spawn(_ path: String, _ arguments: [String], environment: [String: String],
                      output: String = "/dev/null", listeningSocket: Int32? = nil) throws(BenchError) -> ChildProcess {
        guard access(path, X_OK) == 0 else {
            throw .missingProgram(path, hint: "build it with `swift build -c release --product passkey-bench`, or install it")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // dup2 onto 3 clears close-on-exec (the socket is made above fd 3, so it is never already 3).
        if let listeningSocket { posix_spawn_file_actions_adddup2(&actions, listeningSocket, 3) }

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // Whatever this process blocks or ignores, children start with the defaults (SIGTERM stops them).
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
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw .stepFailed("starting \(path)", reason: String(cString: strerror(status)))
        }
        return ChildProcess(pid: pid)
    }

    /// Waits for the process to end; its exit status, or 128 + the signal that ended it.
    @discardableResult
    func wait() -> Int32 { waitWithUsage().status }

    /// Waits for the process to end: its exit status and the CPU time
    /// (user + system, all threads) it used, from wait4(2).
    func waitWithUsage() -> (status: Int32, cpuNanoseconds: Int64) {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as macros.
        let signal = status & 0x7F
        func nanoseconds(_ time: timeval) -> Int64 { Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_usec) * 1_000 }
        return (signal == 0 ? (status >> 8) & 0xFF : 128 + signal,
                nanoseconds(usage.ru_utime) + nanoseconds(usage.ru_stime))
    }

    /// Asks the process to stop (SIGTERM), and reaps it; one that is still
    /// there after 10 s is killed, so a hung daemon cannot hang the benchmark.
    func stop() {
        kill(pid, SIGTERM)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while clock.now < deadline {
            if hasExited() { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        wait()
    }

    /// Whether the process has ended (it is then reaped: do not `stop` it).
    func hasExited() -> Bool {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        return result == pid || (result < 0 && errno == ECHILD)
    }

    /// Runs the program to completion: how long that took from spawn to
    /// exit (as a shell's `time` sees it), the CPU time it used, and its exit status.
    static func timedRun(_ path: String, _ arguments: [String], environment: [String: String])
        throws(BenchError) -> (nanoseconds: Int64, cpuNanoseconds: Int64, status: Int32) {
        let clock = ContinuousClock()
        let start = clock.now
        let process = try spawn(path, arguments, environment: environment)
        let (status, cpu) = process.waitWithUsage()
        return ((clock.now - start).nanoseconds, cpu, status)
    }
}

