#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM, SIGINT and SIGHUP, received by one thread with sigwait(2).
///
/// The signals are blocked at the start of `main`, before any thread
/// exists, so every thread inherits the block and a signal that arrives
/// before the waiter runs stays pending instead of killing the agent.
/// (libdispatch's signal sources on Linux do not see signals that are
/// ignored, the usual way on Darwin.)
public enum SignalWaiter {
    public static let handled: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// Call first thing in `main`.
    public static func blockHandledSignals() {
        var set = signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
        // Past RLIMIT_FSIZE a write should fail (EFBIG, answered as an
        // error that keeps the old data), not kill the agent.
        signal(SIGXFSZ, SIG_IGN)
    }

    /// Calls `handler` with each signal, forever, on the calling thread
    /// (the main thread: dispatchMain() would unblock signals there).
    public static func wait(_ handler: (Int32) -> Void) -> Never {
        var set = signalSet()
        while true {
            var number: Int32 = 0
            if sigwait(&set, &number) == 0 { handler(number) }
        }
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in handled { sigaddset(&set, number) }
        return set
    }
}
