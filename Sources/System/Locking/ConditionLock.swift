#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A mutex with one condition variable, timed against the monotonic clock.
///
/// `Locked` has no condition variable; a waiter that must wake at once when
/// something changes needs one: the software authenticator's `read` blocks
/// until a packet is queued, and its user-action wait wakes when CANCEL
/// arrives from another thread; the test harness's `Signalled` waits for an
/// event instead of sleeping. Waits use CLOCK_MONOTONIC so a wall-clock jump
/// neither shortens nor stretches them.
public final class ConditionLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a broadcast or until `deadline` (`MonotonicClock` nanoseconds; nil = no limit).
    /// Must be called inside `withLock`. Spurious wake-ups happen: callers loop on their condition.
    public func wait(until deadline: UInt64?) {
        guard let deadline else {
            pthread_cond_wait(condition, mutex)
            return
        }
        var time = timespec()
        time.tv_sec = Int(deadline / 1_000_000_000)
        time.tv_nsec = Int(deadline % 1_000_000_000)
        _ = pthread_cond_timedwait(condition, mutex, &time)
    }

    public func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
