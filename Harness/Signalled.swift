#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a lock, as `Locked` holds one, whose every change wakes the
/// threads waiting for a condition on it: a test or a harness server waits
/// for the event itself (a stage heard, an outcome set, a gate opened)
/// instead of sleeping and looking again.
///
/// Why not `Locked`: it has no condition variable. (The virtual
/// authenticator's `ConditionLock` has one, but it is internal to that
/// shipped target, and the harness uses no device target.) Waits are timed
/// against CLOCK_MONOTONIC, so a wall-clock jump neither shortens nor
/// stretches the bound.
public final class Signalled<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only between lock and unlock.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    public init(_ value: sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        changed = .allocate(capacity: 1)
        changed.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(changed, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock, then wakes every
    /// waiter to look at it again. Not reentrant, as `Locked.withLock`.
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(mutex)
        }
        return try body(&value)
    }

    /// Blocks until `condition` holds for the value: it is checked now and
    /// after every change. `timeout` bounds the wait (nil: no bound), so a
    /// test fails instead of hanging when the event never comes. Returns
    /// whether the condition held; false only when the time ran out first.
    @discardableResult
    public func wait(within timeout: Duration? = nil, until condition: (Value) -> Bool) -> Bool {
        let deadline = timeout.map(Self.deadline(after:))
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !condition(value) {
            guard var deadline else {
                pthread_cond_wait(changed, mutex)
                continue
            }
            if pthread_cond_timedwait(changed, mutex, &deadline) == ETIMEDOUT { return condition(value) }
        }
        return true
    }

    /// CLOCK_MONOTONIC now plus `duration` (negative counts as zero), saturating.
    private static func deadline(after duration: Duration) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return now }
        let (wholeSeconds, overflow) = now.tv_sec.addingReportingOverflow(Int(clamping: seconds))
        if overflow { return timespec(tv_sec: Int.max, tv_nsec: 0) }
        let nanoseconds = now.tv_nsec + Int(attoseconds / 1_000_000_000)
        let carry = nanoseconds >= 1_000_000_000 ? 1 : 0
        let (total, overflowAgain) = wholeSeconds.addingReportingOverflow(carry)
        if overflowAgain { return timespec(tv_sec: Int.max, tv_nsec: 0) }
        return timespec(tv_sec: total, tv_nsec: nanoseconds - carry * 1_000_000_000)
    }
}
