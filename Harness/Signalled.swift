import Locking

/// A value behind a lock, as `Locked` holds one, whose every change wakes the
/// threads waiting for a condition on it: a test or a harness server waits
/// for the event itself (a stage heard, an outcome set, a gate opened)
/// instead of sleeping and looking again. Built on Locking's
/// `ConditionLock`, which times its waits against CLOCK_MONOTONIC.
public final class Signalled<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only inside `lock.withLock`.
    private let lock = ConditionLock()
    private var value: Value

    public init(_ value: sending Value) {
        self.value = value
    }

    /// Runs `body` with the value while holding the lock, then wakes every
    /// waiter to look at it again. Not reentrant, as `Locked.withLock`.
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try lock.withLock { () throws(Failure) -> Result in
            defer { lock.broadcast() }
            return try body(&value)
        }
    }

    /// Blocks until `condition` holds for the value: it is checked now and
    /// after every change. `timeout` bounds the wait (nil: no bound), so a
    /// test fails instead of hanging when the event never comes. Returns
    /// whether the condition held; false only when the time ran out first.
    @discardableResult
    public func wait(within timeout: Duration? = nil, until condition: (Value) -> Bool) -> Bool {
        let deadline = timeout.map(MonotonicClock.deadline(after:))
        return lock.withLock {
            while !condition(value) {
                if let deadline, MonotonicClock.now() >= deadline { return false }
                lock.wait(until: deadline)
            }
            return true
        }
    }
}
