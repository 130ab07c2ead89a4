/// Seconds that come from outside — a token endpoint's `expires_in`, a JWT's
/// `exp`, a stored entry's expiry — meet the clock here. Any of them may be
/// hostile or absurd (2^63, -2^63, 1e300), and Swift traps on an overflowing
/// `+`/`-` or an inexact `Int64(Double)`: the agent would die on every
/// `token get`. So every such number is converted exactly and every sum
/// saturates: "far future" and "long past" keep their meaning without a trap.
/// Public: OpenID reads ID-token and device-grant times through it too.
public enum OutsideSeconds {
    /// The latest instant (and, negated, the earliest) a token set holds:
    /// 2^53 - 1 s, 285 million years from 1970. Beyond it "far future" or
    /// "long past" is all a time can mean, and 2^53 is where JSON readers
    /// that hold numbers as doubles (JavaScript, jq, the agent protocol's
    /// own JSON values) stop being exact: an expiry of 2^63 - 1 left the
    /// agent as 9.223372036854776e18, which no client could read back.
    public static let latest: Int64 = (1 << 53) - 1

    /// `instant` brought within ±`latest`.
    public static func instant(_ instant: Int64) -> Int64 {
        min(max(instant, -latest), latest)
    }

    /// The instant `seconds` after `start`, saturated to ±`latest`.
    public static func instant(_ seconds: Int64, after start: Int64) -> Int64 {
        instant(adding(seconds, to: start))
    }

    /// `start + seconds`, pinned to `Int64.min`/`Int64.max` instead of overflowing.
    public static func adding(_ seconds: Int64, to start: Int64) -> Int64 {
        let (sum, overflow) = start.addingReportingOverflow(seconds)
        guard overflow else { return sum }
        return seconds > 0 ? .max : .min
    }

    /// Whole seconds from a JSON number, rounded down (a token then expires
    /// no later than it says), saturated at the ends of `Int64`. RFC 7519
    /// lets a NumericDate be any JSON number, fractions included. Nil only
    /// for NaN and infinities, which JSON cannot carry but `Double(text)` can.
    public static func whole(_ value: Double) -> Int64? {
        guard value.isFinite else { return nil }
        let whole = value.rounded(.down)
        return Int64(exactly: whole) ?? (whole < 0 ? .min : .max)
    }

    /// Whole seconds from text: ASCII digits with an optional leading `-`,
    /// saturated at the ends of `Int64`. Nil for anything else ("soon", "1e3", "").
    public static func whole(_ text: String) -> Int64? {
        let digits = text.utf8.first == UInt8(ascii: "-") ? text.utf8.dropFirst() : text.utf8[...]
        guard !digits.isEmpty, digits.count <= 4096,
              digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int64(text) ?? (text.hasPrefix("-") ? .min : .max)
    }
}
