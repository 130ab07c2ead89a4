/// One BER-TLV data object (ISO/IEC 7816-4 §5.2.2): a tag, and a value whose
/// length is encoded in the short (`< 0x80`) or long form (`81 xx`,
/// `82 xx xx`, `83 xx xx xx`).
///
/// Encoding always uses the shortest length form, because some clients read
/// fixed offsets (yubico-piv-tool expects `86 41` at offset 3 of a generated key).
public struct BERTLV: Sendable, Equatable {
    /// Values longer than this are refused when parsing (no card object is near it).
    public static let maximumValueLength = 0xFF_FFFF

    public var tag: TLVTag
    public var value: [UInt8]

    public init(tag: TLVTag, value: [UInt8]) {
        self.tag = tag
        self.value = value
    }

    /// A constructed object whose value is the concatenated encodings of `children`.
    public init(tag: TLVTag, children: [BERTLV]) {
        self.tag = tag
        self.value = children.flatMap(\.encoded)
    }

    public var encoded: [UInt8] {
        tag.bytes + Self.encodeLength(value.count) + value
    }

    /// The value parsed as a sequence of TLVs (for constructed objects).
    public func children() throws(ISO7816Error) -> [BERTLV] {
        try Self.parseAll(value)
    }

    /// The shortest BER length field for `length` bytes.
    public static func encodeLength(_ length: Int) -> [UInt8] {
        switch length {
        case ..<0x80: return [UInt8(length)]
        case ..<0x100: return [0x81, UInt8(length)]
        case ..<0x10000: return [0x82, UInt8(length >> 8), UInt8(length & 0xFF)]
        default: return [0x83, UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
        }
    }

    /// Parses exactly one TLV at the start of `bytes`; returns it and how many bytes it used.
    public static func parseFirst(_ bytes: ArraySlice<UInt8>) throws(ISO7816Error) -> (BERTLV, consumed: Int) {
        let (tag, afterTag) = try TLVTag.read(bytes, at: bytes.startIndex)
        let (length, afterLength) = try readLength(bytes, at: afterTag)
        guard bytes.endIndex - afterLength >= length else {
            throw .tlvTruncated(offset: bytes.endIndex - bytes.startIndex)
        }
        let value = Array(bytes[afterLength..<(afterLength + length)])
        return (BERTLV(tag: tag, value: value), afterLength + length - bytes.startIndex)
    }

    public static func parseFirst(_ bytes: [UInt8]) throws(ISO7816Error) -> (BERTLV, consumed: Int) {
        try parseFirst(bytes[...])
    }

    /// Parses a buffer that holds only TLVs, back to back, with nothing after the last.
    public static func parseAll(_ bytes: [UInt8]) throws(ISO7816Error) -> [BERTLV] {
        var objects: [BERTLV] = []
        var rest = bytes[...]
        while !rest.isEmpty {
            let (object, used) = try parseFirst(rest)
            objects.append(object)
            rest = rest.dropFirst(used)
        }
        return objects
    }

    private static func readLength(_ bytes: ArraySlice<UInt8>, at offset: Int) throws(ISO7816Error) -> (Int, Int) {
        guard offset < bytes.endIndex else { throw .tlvTruncated(offset: offset - bytes.startIndex) }
        let first = bytes[offset]
        if first < 0x80 { return (Int(first), offset + 1) }
        let count = Int(first & 0x7F)
        guard count >= 1, count <= 3 else {
            throw .tlvUnsupportedLength(firstByte: first, offset: offset - bytes.startIndex)
        }
        guard bytes.endIndex - (offset + 1) >= count else {
            throw .tlvTruncated(offset: bytes.endIndex - bytes.startIndex)
        }
        var length = 0
        for i in 0..<count { length = length << 8 | Int(bytes[offset + 1 + i]) }
        guard length <= maximumValueLength else { throw .tlvValueTooLong(length) }
        return (length, offset + 1 + count)
    }
}

extension Array where Element == BERTLV {
    /// The first object with this tag, if any.
    public func first(_ tag: TLVTag) -> BERTLV? {
        first { $0.tag == tag }
    }
}
