/// Hexadecimal text for bytes: how APDUs, ATRs, keys, AAGUIDs and vault entry
/// names are written, and how pasted keys are read. The one implementation in
/// the package; every target that shows or reads bytes as hex uses it.
public enum Hexadecimal {
    private static let lower = Array("0123456789abcdef".utf8)
    private static let upper = Array("0123456789ABCDEF".utf8)

    /// Two digits per byte, no separators; lower case unless asked.
    public static func encode(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        let digits = uppercase ? upper : lower
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Decodes hex digits (either case). Spaces, tabs, newlines and colons
    /// between bytes are ignored so that pasted dumps like `01:02:03` work.
    public static func decode(_ text: some StringProtocol) throws(HexadecimalError) -> [UInt8] {
        guard let bytes = decode(text, separators: true, uppercase: true) else { throw HexadecimalError() }
        return bytes
    }

    /// Only what `encode` writes: lower-case digit pairs and nothing else, or
    /// nil. For names we make ourselves, where any other spelling is not ours.
    public static func decodeExactly(_ text: some StringProtocol) -> [UInt8]? {
        decode(text, separators: false, uppercase: false)
    }

    private static func decode(_ text: some StringProtocol, separators: Bool, uppercase: Bool) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        for unit in text.utf8 {
            if separators, unit == UInt8(ascii: " ") || unit == UInt8(ascii: ":")
                || unit == UInt8(ascii: "\n") || unit == UInt8(ascii: "\t") {
                if high != nil { return nil }
                continue
            }
            guard let nibble = nibble(unit, uppercase: uppercase) else { return nil }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return high == nil ? bytes : nil
    }

    private static func nibble(_ unit: UInt8, uppercase: Bool) -> UInt8? {
        switch unit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return unit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return unit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F") where uppercase: return unit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// Text that is not an even number of hexadecimal digits.
public struct HexadecimalError: Error, Equatable, Sendable, CustomStringConvertible {
    public init() {}
    public var description: String { "not an even number of hexadecimal digits" }
}
