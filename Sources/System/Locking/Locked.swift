#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value only one thread at a time may read or change: the project's one
/// lock for shared state.
///
/// Why not `Synchronization.Mutex`: on Linux it waits on a futex from code
/// compiled without ThreadSanitizer, so under `-sanitize=thread` every value
/// it guards looked unguarded and TSan reported races inside `withLock`
/// (issue 30) — true races could not be told from those. A pthread mutex is
/// one TSan intercepts, so its reports about a `Locked` value are real. The
/// cost is one allocation per lock and a pthread call per use, which the
/// agent's benchmark does not see.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only between lock and unlock.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock; what it returns is
    /// handed out after the lock is released. Not reentrant: `body` must not
    /// take the same lock again.
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
