/// What a reader of outside JSON accepts before it lets a decoder near it:
/// Foundation's decoder costs time quadratic in the nesting depth and about
/// 3 µs per value, so size, depth and the number of values are measured on
/// the bytes first, in one pass.
public struct JSONLimits: Sendable, Equatable {
    public var maximumBytes: Int
    /// Arrays and objects nested deeper than this are refused.
    public var maximumDepth: Int
    /// At most this many values: arrays and objects, plus one per comma (n
    /// elements or members have n - 1 commas between them).
    public var maximumValues: Int

    public init(maximumBytes: Int, maximumDepth: Int, maximumValues: Int) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
        self.maximumValues = maximumValues
    }

    /// Why `text` exceeds the limits, or nil when it is within them.
    /// Brackets and commas inside strings do not count. Invalid JSON is left
    /// to the decoder to report.
    public func problem(_ text: some Collection<UInt8>) -> JSONProblem? {
        guard text.count <= maximumBytes else { return .tooLarge(maximumBytes) }
        var depth = 0, values = 0, inString = false, escaped = false
        for byte in text {
            if inString {
                if escaped { escaped = false }
                else if byte == UInt8(ascii: "\\") { escaped = true }
                else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                values += 1
                if depth > maximumDepth { return .tooDeep(maximumDepth) }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            case UInt8(ascii: ","): values += 1
            default: continue
            }
            if values > maximumValues { return .tooManyValues(maximumValues) }
        }
        return nil
    }
}

/// Why bytes are not JSON a reader takes; each case carries the limit passed.
public enum JSONProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case tooLarge(Int), tooDeep(Int), tooManyValues(Int), notJSON

    public var description: String {
        switch self {
        case .tooLarge(let limit): return "it is larger than \(limit) bytes"
        case .tooDeep(let limit): return "it nests more than \(limit) levels deep"
        case .tooManyValues(let limit): return "it holds more than \(limit) values"
        case .notJSON: return "it is not JSON"
        }
    }
}
