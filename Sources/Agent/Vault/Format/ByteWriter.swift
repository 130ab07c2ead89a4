/// Builds the vault's binary records field by field, big-endian, as
/// docs/VAULT.md lays them out.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func append(_ value: UInt8) { bytes.append(value) }

    mutating func append(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    mutating func append(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func append(_ raw: [UInt8]) { bytes += raw }

    /// A field of at most 255 bytes, preceded by its length in one byte.
    mutating func appendShort(_ raw: [UInt8]) {
        precondition(raw.count <= Int(UInt8.max), "callers check lengths before encoding")
        append(UInt8(raw.count))
        append(raw)
    }

    /// A field of at most 65535 bytes, preceded by its length in two bytes.
    mutating func appendLong(_ raw: [UInt8]) {
        precondition(raw.count <= Int(UInt16.max), "callers check lengths before encoding")
        append(UInt16(raw.count))
        append(raw)
    }
}
