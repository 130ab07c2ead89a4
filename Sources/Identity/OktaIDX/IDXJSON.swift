import FoundationEssentials

/// A JSON value of an IDX answer, read with bounds: IDX answers are outside
/// input, and ION nests forms in options in forms, so size, depth and the
/// number of values are checked on the bytes before anything is decoded.
public enum IDXJSON: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([IDXJSON])
    case object([String: IDXJSON])

    /// An IDX answer larger than this is refused (real ones are tens of kilobytes).
    public static let maximumBytes = 1 << 20
    /// Arrays and objects nested deeper than this are refused (real answers reach about 12).
    public static let maximumDepth = 32
    /// At most this many values in one answer.
    public static let maximumValues = 50_000

    /// Parses `bytes` as one JSON value within the bounds; nil names why not.
    public static func parse(_ bytes: [UInt8]) -> Result<IDXJSON, IDXJSONProblem> {
        guard bytes.count <= maximumBytes else { return .failure(.tooLarge) }
        var depth = 0, values = 0, inString = false, escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                values += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                values += 1
                guard depth <= maximumDepth else { return .failure(.tooDeep) }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            case UInt8(ascii: ","):
                values += 1
            default:
                break
            }
            guard values <= maximumValues else { return .failure(.tooManyValues) }
        }
        do {
            return .success(try JSONDecoder().decode(IDXJSON.self, from: Data(bytes)))
        } catch {
            return .failure(.notJSON)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([IDXJSON].self) { self = .array(value) }
        else { self = .object(try container.decode([String: IDXJSON].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if let integer = Int64(exactly: value) { try container.encode(integer) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The JSON text (object members in a stable order).
    public var encoded: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? Array(encoder.encode(self))) ?? Array("null".utf8)
    }

    public subscript(key: String) -> IDXJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var array: [IDXJSON]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// The value as a short text for a message or a prompt: strings as they
    /// are, numbers and booleans as JSON; nil for arrays and objects.
    public var text: String? {
        switch self {
        case .string(let value): return value
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return Int64(exactly: value).map(String.init) ?? String(value)
        default: return nil
        }
    }
}

/// Why bytes are not an IDX answer we read.
public enum IDXJSONProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case tooLarge, tooDeep, tooManyValues, notJSON

    public var description: String {
        switch self {
        case .tooLarge: return "the answer is larger than \(IDXJSON.maximumBytes) bytes"
        case .tooDeep: return "the answer nests more than \(IDXJSON.maximumDepth) levels deep"
        case .tooManyValues: return "the answer has more than \(IDXJSON.maximumValues) values"
        case .notJSON: return "the answer is not JSON"
        }
    }
}
