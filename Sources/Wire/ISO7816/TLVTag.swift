import Hexadecimal

/// A BER-TLV tag (ISO/IEC 7816-4 §5.2.2.1), one to four bytes, kept as the
/// big-endian number of its bytes: `0x7F49`, `0x5FC10B`, `0x53`.
public struct TLVTag: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { self.rawValue = value }

    /// The tag's bytes as they appear on the wire.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        var seenNonZero = false
        for shift in stride(from: 24, through: 0, by: -8) {
            let byte = UInt8((rawValue >> UInt32(shift)) & 0xFF)
            if byte != 0 || seenNonZero || shift == 0 {
                out.append(byte)
                seenNonZero = true
            }
        }
        return out
    }

    /// Bit 6 of the first byte: the value is itself a sequence of TLVs.
    public var isConstructed: Bool {
        guard let first = bytes.first else { return false }
        return first & 0x20 != 0
    }

    /// Reads a tag from `bytes` at `offset`; returns the tag and the offset after it.
    static func read(_ bytes: ArraySlice<UInt8>, at offset: Int) throws(ISO7816Error) -> (TLVTag, Int) {
        var index = offset
        guard index < bytes.endIndex else { throw .tlvTruncated(offset: index - bytes.startIndex) }
        let first = bytes[index]
        var raw = UInt32(first)
        index += 1
        // Low five bits all set: the tag number continues in following bytes,
        // each with bit 8 set except the last.
        if first & 0x1F == 0x1F {
            var count = 1
            while true {
                guard index < bytes.endIndex else { throw .tlvTruncated(offset: index - bytes.startIndex) }
                let next = bytes[index]
                index += 1
                count += 1
                guard count <= 4 else { throw .tlvTagTooLong(offset: offset - bytes.startIndex) }
                raw = raw << 8 | UInt32(next)
                if next & 0x80 == 0 { break }
            }
        }
        return (TLVTag(raw), index)
    }

    public var description: String { Hexadecimal.encode(bytes).uppercased() }
}
