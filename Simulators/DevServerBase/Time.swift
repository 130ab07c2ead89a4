import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The devserver's source of the current time.
public struct DevServerClock: Sendable {
    public let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) { self.now = now }

    public static let system = DevServerClock { Date() }

    /// For tests (`passkey-devserver --clock-file`): this machine's time plus
    /// the whole seconds written in `path`, read again at every reading of
    /// the time, so a test expires what lives N seconds by writing N instead
    /// of sleeping N seconds. A file that is absent, unreadable or holds
    /// anything but 0 to 31536000 (a year) adds nothing.
    public static func offset(byFile path: String) -> DevServerClock {
        DevServerClock { Date().addingTimeInterval(TimeInterval(offsetSeconds(path))) }
    }

    package static func offsetSeconds(_ path: String) -> Int64 {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return 0 }
        let text = String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let seconds = Int64(text), (0...31_536_000).contains(seconds) else { return 0 }
        return seconds
    }
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
