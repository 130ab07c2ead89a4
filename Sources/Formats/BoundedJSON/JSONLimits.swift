/// A single pass over a JSON text that measures what makes it costly to
/// decode (nesting depth and number of values) before a decoder sees it.
/// Brackets and commas inside strings do not count. Invalid JSON is left to
/// the decoder to report.
enum JSONShape: Equatable {
    case withinLimits
    case tooDeep
    case tooManyValues

    static func scan(_ text: some Sequence<UInt8>, maxDepth: Int, maxValues: Int) -> JSONShape {
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
                if depth > maxDepth { return .tooDeep }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            // n elements or members have n - 1 commas between them.
            case UInt8(ascii: ","): values += 1
            default: continue
            }
            if values > maxValues { return .tooManyValues }
        }
        return .withinLimits
    }
}
