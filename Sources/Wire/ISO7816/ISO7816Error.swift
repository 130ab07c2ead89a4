import Hexadecimal

/// Why a byte string is not an acceptable APDU or BER-TLV encoding.
///
/// The parsers in this module never trap on input: every malformed case is
/// one of these, so a card can answer a bad command with a status word and a
/// client can report a bad response in one line.
public enum ISO7816Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// A command APDU is shorter than its 4-byte header.
    case commandTooShort(Int)
    /// A command APDU's length fields do not match its size.
    case commandLengthMismatch(String)
    /// A command carries more data than the chosen encoding can hold.
    case commandDataTooLong(Int, limit: Int)
    /// A command's expected response length is outside 1…65536.
    case expectedLengthOutOfRange(Int)
    /// A response APDU is shorter than its 2-byte status word.
    case responseTooShort(Int)
    /// A BER-TLV ends inside a tag, a length or a value.
    case tlvTruncated(offset: Int)
    /// A BER-TLV tag is longer than the 4 bytes this module handles.
    case tlvTagTooLong(offset: Int)
    /// A BER-TLV length uses a form this module does not accept (indefinite, or more than 3 length bytes).
    case tlvUnsupportedLength(firstByte: UInt8, offset: Int)
    /// A BER-TLV value is larger than this module accepts.
    case tlvValueTooLong(Int)

    public var description: String {
        switch self {
        case .commandTooShort(let n):
            return "command APDU has \(n) byte(s), fewer than the 4-byte header"
        case .commandLengthMismatch(let why):
            return "command APDU length fields do not match its size: \(why)"
        case .commandDataTooLong(let n, let limit):
            return "command APDU data is \(n) bytes, more than the \(limit) this encoding holds"
        case .expectedLengthOutOfRange(let n):
            return "expected response length \(n) is outside 1…65536"
        case .responseTooShort(let n):
            return "response APDU has \(n) byte(s), fewer than the 2-byte status word"
        case .tlvTruncated(let offset):
            return "BER-TLV ends early at byte \(offset)"
        case .tlvTagTooLong(let offset):
            return "BER-TLV tag at byte \(offset) is longer than 4 bytes"
        case .tlvUnsupportedLength(let first, let offset):
            return "BER-TLV length byte \(Hexadecimal.encode([first])) at byte \(offset) is not supported"
        case .tlvValueTooLong(let n):
            return "BER-TLV value of \(n) bytes is too long"
        }
    }
}
