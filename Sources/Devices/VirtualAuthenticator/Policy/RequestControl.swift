import Locking

/// The status byte of a CTAPHID KEEPALIVE packet (CTAP 2.1 §11.2.9.2.1).
public enum KeepaliveStatus: UInt8, Sendable {
    case processing = 0x01
    case userPresenceNeeded = 0x02
}

/// The host's side of one request while it runs: it can cancel the request
/// (CTAPHID_CANCEL, from any thread), and it hears a keepalive about every
/// 100 ms while the request waits for the simulated user.
public final class RequestControl: @unchecked Sendable {
    /// CTAP 2.1 §11.2.9.2.1: keepalives at least every 100 ms.
    static let keepaliveIntervalNanoseconds: UInt64 = 100_000_000

    private let lock = ConditionLock()
    private var cancelled = false  // guarded by lock
    private let keepalive: @Sendable (KeepaliveStatus) -> Void

    public init(keepalive: @escaping @Sendable (KeepaliveStatus) -> Void = { _ in }) {
        self.keepalive = keepalive
    }

    /// Cancels the request: a pending user-action wait ends at once with KEEPALIVE_CANCEL.
    public func cancel() {
        lock.withLock { cancelled = true }
        lock.broadcast()
    }

    public var isCancelled: Bool { lock.withLock { cancelled } }

    /// Waits up to `milliseconds` for the simulated user, sending a keepalive
    /// now and then every 100 ms. Returns true if the request was cancelled.
    func waitForUser(milliseconds: Int) -> Bool {
        let end = MonotonicClock.deadline(afterMilliseconds: milliseconds)
        while true {
            // Never call out (the keepalive takes the device's lock) while holding ours.
            keepalive(.userPresenceNeeded)
            let wasCancelled: Bool = lock.withLock {
                let wake = min(end, MonotonicClock.now() &+ Self.keepaliveIntervalNanoseconds)
                while !cancelled && MonotonicClock.now() < wake { lock.wait(until: wake) }
                return cancelled
            }
            if wasCancelled { return true }
            if MonotonicClock.now() >= end { return false }
        }
    }
}
