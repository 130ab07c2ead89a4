#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Monotonic time in nanoseconds (CLOCK_MONOTONIC), for deadlines and
/// timers, and for `ConditionLock.wait(until:)`.
public enum MonotonicClock {
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(clamping: time.tv_sec) * 1_000_000_000 + UInt64(clamping: time.tv_nsec)
    }

    /// `now() + milliseconds`, saturating instead of overflowing.
    public static func deadline(afterMilliseconds milliseconds: Int) -> UInt64 {
        let (sum, overflow) = now().addingReportingOverflow(nanoseconds(milliseconds: milliseconds))
        return overflow ? UInt64.max : sum
    }

    /// Milliseconds as nanoseconds; negative counts as 0, huge values saturate.
    public static func nanoseconds(milliseconds: Int) -> UInt64 {
        let (product, overflow) = UInt64(max(0, milliseconds)).multipliedReportingOverflow(by: 1_000_000)
        return overflow ? UInt64.max : product
    }

    /// `now() + duration`; a negative duration counts as 0, and the sum saturates.
    public static func deadline(after duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return now() }
        let (scaled, overflow) = UInt64(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (nanoseconds, overflowAgain) = scaled.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        let (sum, overflowOnceMore) = now().addingReportingOverflow(nanoseconds)
        return overflow || overflowAgain || overflowOnceMore ? UInt64.max : sum
    }
}
