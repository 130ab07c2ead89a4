import Base64
/// Bytes that travel in WebAuthn's JSON forms as base64url without padding
/// (WebAuthn L3 §5.1.8 `Base64URLString`).
///
/// Decoding is strict: a value that is not base64url — standard base64 with
/// `+` or `/`, stray characters, an impossible length — is a decoding error
/// naming the field, never silently turned into different bytes. Padding is
/// tolerated, as fido2-net-lib tolerates it.
public struct Base64URLBytes: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByArrayLiteral {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public init(arrayLiteral elements: UInt8...) { self.bytes = elements }

    /// Parses base64url text; nil if it is not base64url.
    public init?(base64URL text: String) {
        guard let bytes = Base64URL.decode(text, padding: .tolerated) else { return nil }
        self.bytes = bytes
    }

    /// The unpadded base64url text.
    public var base64URL: String { Base64URL.encode(bytes) }

    public var description: String { base64URL }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let bytes = Base64URL.decode(text, padding: .tolerated) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not base64url (RFC 4648 §5, alphabet A-Z a-z 0-9 - _)")
        }
        self.bytes = bytes
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(base64URL)
    }
}
