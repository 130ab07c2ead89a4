import Locking
import NIOCore

/// Bounds a request's total time: a timer on the connection's event loop
/// that, when it fires, cancels the request, which then answers `timeout`.
///
/// Not a sleeping child task beside the request: a cancelled `Task.sleep`
/// keeps its timer (about 300 bytes, heaptrack showed) until its deadline
/// passes, so with the 300 s limit every request answered in the last five
/// minutes still held one — at a thousand requests a second, tens of
/// megabytes that no client was using, and the soak's memory did not come
/// back. A cancelled scheduled task leaves the event loop's queue at once.
final class RequestDeadline: Sendable {
    private let expired = Locked(false)
    private let timer = Locked<Scheduled<Void>?>(nil)

    /// Starts the timer; `expire` runs on the event loop if it fires first.
    init(limit: Duration, on eventLoop: any EventLoop, expire: @escaping @Sendable () -> Void) {
        let scheduled = eventLoop.scheduleTask(in: Self.timeAmount(limit)) { [self] in
            expired.withLock { $0 = true }
            expire()
        }
        timer.withLock { $0 = scheduled }
    }

    /// The request has answered: the timer is cancelled. True when it had
    /// fired first, so the answer is `timeout` whatever the request returned.
    func end() -> Bool {
        timer.withLock { $0.take() }?.cancel()
        return expired.withLock { $0 }
    }

    /// `limit` in nanoseconds, saturating (a limit too long to count never fires).
    static func timeAmount(_ limit: Duration) -> TimeAmount {
        let (seconds, attoseconds) = limit.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .nanoseconds(seconds < 0 ? 0 : Int64.max) }
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return .nanoseconds(overflowAgain ? Int64.max : max(0, total))
    }
}
