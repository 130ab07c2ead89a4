/// Why a byte string is not an acceptable CBOR item.
///
/// Every decoding failure is one of these; the decoder never traps on input.
public enum CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ends inside an item.
    case truncated
    /// A complete item was followed by this many unexpected bytes.
    case trailingBytes(Int)
    /// The bytes are not well-formed CBOR (reserved additional information, a stray break, …).
    case malformed
    /// A well-formed item of a kind CTAP2 canonical CBOR excludes (tag, float, indefinite length, undefined).
    case unsupported(String)
    /// A text string is not valid UTF-8.
    case invalidUTF8
    /// A map repeats a key.
    case duplicateMapKey
    /// The item is valid CBOR but not in CTAP2 canonical form (only checked when asked).
    case nonCanonical
    /// The input is longer than the decoder accepts.
    case tooLarge(limit: Int)
    /// Containers are nested deeper than the decoder accepts.
    case tooDeep(limit: Int)
    /// The input holds more data items than the decoder accepts.
    case tooManyItems(limit: Int)

    public var description: String {
        switch self {
        case .truncated: return "CBOR input ends inside an item"
        case .trailingBytes(let n): return "CBOR item is followed by \(n) unexpected byte(s)"
        case .malformed: return "CBOR input is malformed"
        case .unsupported(let what): return "CBOR \(what) is not allowed here"
        case .invalidUTF8: return "CBOR text string is not valid UTF-8"
        case .duplicateMapKey: return "CBOR map repeats a key"
        case .nonCanonical: return "CBOR item is not in canonical form"
        case .tooLarge(let limit): return "CBOR input is larger than \(limit) bytes"
        case .tooDeep(let limit): return "CBOR containers nest deeper than \(limit) levels"
        case .tooManyItems(let limit): return "CBOR input holds more than \(limit) items"
        }
    }
}
