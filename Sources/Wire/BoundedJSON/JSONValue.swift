import FoundationEssentials

/// Any JSON value, held before it is decoded into a type of its own: a
/// socket message's `params`, `result` and `error.data`, and an Okta IDX
/// answer, whose forms the server describes at run time.
///
/// From outside bytes, read it with `parse(_:within:)`, which measures the
/// text against `JSONLimits` before any decoder runs.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses `bytes` as one JSON value, first checking them against `limits`.
    public static func parse(_ bytes: [UInt8], within limits: JSONLimits) -> Result<JSONValue, JSONProblem> {
        if let problem = limits.problem(bytes) { return .failure(problem) }
        do {
            return .success(try JSONDecoder().decode(JSONValue.self, from: Data(bytes)))
        } catch {
            return .failure(.notJSON)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let b = try? container.decode(Bool.self) { self = .bool(b) }
        else if let n = try? container.decode(Double.self) { self = .number(n) }
        else if let s = try? container.decode(String.self) { self = .string(s) }
        else if let a = try? container.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .number(let n):
            // Integers print without a fraction, as JSON-RPC ids and counters should.
            if let integer = Self.safeInteger(n) { try container.encode(integer) } else { try container.encode(n) }
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }

    /// `n` as an integer when it is one that a double holds exactly (|n| < 2^53).
    private static func safeInteger(_ n: Double) -> Int64? {
        guard abs(n) < 9_007_199_254_740_992 else { return nil }
        return Int64(exactly: n)
    }

    /// Re-decodes this value as `T` (params and results travel as JSONValue inside the envelope).
    public func decode<T: Decodable>(as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(self))
    }

    public init<T: Encodable>(encoding value: T) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    /// The JSON text, object members in a stable order.
    public var encoded: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? Array(encoder.encode(self))) ?? Array("null".utf8)
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var array: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// The value as a short text for a message or a prompt: strings as they
    /// are, numbers and booleans as JSON; nil for null, arrays and objects.
    public var text: String? {
        switch self {
        case .string(let value): return value
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return Self.safeInteger(value).map(String.init) ?? String(value)
        default: return nil
        }
    }
}
