import FoundationEssentials

/// The devserver's source of the current time.
public struct DevServerClock: Sendable {
    public let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) { self.now = now }

    public static let system = DevServerClock { Date() }
}

extension Duration {
    /// Seconds as a `TimeInterval`, for date arithmetic.
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

extension Date {
    /// Whole seconds since 1970, as JWT NumericDate; saturating, never trapping.
    package var numericDate: Int64 {
        let seconds = timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite else { return 0 }
        return Int64(exactly: seconds) ?? (seconds > 0 ? Int64.max : Int64.min)
    }
}

/// The longest lifetime a command line may ask for: a day. Every server's
/// configured lifetimes are checked against it.
public enum Lifetimes {
    public static let maxSeconds = 86_400
}
