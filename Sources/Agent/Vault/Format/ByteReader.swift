/// Reads the vault's binary records with every length checked before use:
/// a short or over-long field is a `FormatProblem` naming the field, never a crash.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte(_ field: String) throws(FormatProblem) -> UInt8 {
        try take(1, field)[0]
    }

    mutating func uint16(_ field: String) throws(FormatProblem) -> UInt16 {
        let raw = try take(2, field)
        return UInt16(raw[0]) << 8 | UInt16(raw[1])
    }

    mutating func uint32(_ field: String) throws(FormatProblem) -> UInt32 {
        let raw = try take(4, field)
        return raw.reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func take(_ count: Int, _ field: String) throws(FormatProblem) -> [UInt8] {
        guard count >= 0, count <= remaining else {
            throw FormatProblem("\(field) needs \(count) bytes at offset \(offset), but only \(remaining) remain")
        }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// A field preceded by its one-byte length.
    mutating func short(_ field: String) throws(FormatProblem) -> [UInt8] {
        try take(Int(try byte(field + " length")), field)
    }

    /// A field preceded by its two-byte length.
    mutating func long(_ field: String) throws(FormatProblem) -> [UInt8] {
        try take(Int(try uint16(field + " length")), field)
    }

    /// Everything left.
    mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    func expectEnd(_ what: String) throws(FormatProblem) {
        guard isAtEnd else { throw FormatProblem("\(remaining) unexpected bytes after the \(what)") }
    }
}

/// Why a record does not parse: one line naming the field.
struct FormatProblem: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
