/// One CBOR data item, as CTAP2 and WebAuthn use them.
///
/// The cases cover what CTAP2 canonical CBOR allows (CTAP 2.1 §8): integers,
/// byte and text strings, arrays, maps, booleans and null. Floats, tags and
/// indefinite lengths are not representable, so they cannot be emitted by
/// mistake, and the decoder refuses them with a typed error.
public enum CBOR: Sendable, Hashable {
    /// A non-negative integer (major type 0).
    case unsigned(UInt64)
    /// A negative integer (major type 1): the value is `-1 - n`.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// Keys are unique by construction; encoding sorts them canonically.
    case map([CBOR: CBOR])
    case bool(Bool)
    case null

    /// A signed integer in the shortest case that holds it.
    public static func int(_ value: Int64) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    public static func int(_ value: Int) -> CBOR { .int(Int64(value)) }
}

// MARK: - Reading values

extension CBOR {
    /// The integer value if it fits an `Int64`.
    public var intValue: Int64? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): return n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: return nil
        }
    }

    public var uintValue: UInt64? {
        if case .unsigned(let n) = self { return n }
        return nil
    }

    public var bytesValue: [UInt8]? {
        if case .bytes(let b) = self { return b }
        return nil
    }

    public var textValue: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    public var arrayValue: [CBOR]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var mapValue: [CBOR: CBOR]? {
        if case .map(let m) = self { return m }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// Map lookup by integer key (CTAP2 messages use small integer keys).
    public subscript(key: Int) -> CBOR? {
        mapValue?[.int(key)]
    }

    /// Map lookup by text key (COSE and WebAuthn use text keys).
    public subscript(key: String) -> CBOR? {
        mapValue?[.text(key)]
    }

    /// A short name of the item's type, for error messages.
    public var typeName: String {
        switch self {
        case .unsigned, .negative: return "integer"
        case .bytes: return "byte string"
        case .text: return "text string"
        case .array: return "array"
        case .map: return "map"
        case .bool: return "boolean"
        case .null: return "null"
        }
    }
}

// MARK: - Literals, so messages read like the spec tables

extension CBOR: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension CBOR: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
}

extension CBOR: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension CBOR: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: CBOR...) { self = .array(elements) }
}

extension CBOR: ExpressibleByDictionaryLiteral {
    /// Duplicate keys are a programming error in a literal; the last one wins.
    public init(dictionaryLiteral elements: (CBOR, CBOR)...) {
        self = .map(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
