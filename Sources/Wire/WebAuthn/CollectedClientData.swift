import Base64
import FoundationEssentials
import Hexadecimal

/// The client data a WebAuthn client collects and the authenticator signs over
/// (WebAuthn L3 §5.8.1). `json` is serialised as the spec's CCDToString does:
/// type, challenge, origin, crossOrigin, then topOrigin when present.
public struct CollectedClientData: Sendable, Equatable {
    public enum CeremonyType: String, Sendable, Codable {
        case create = "webauthn.create"
        case get = "webauthn.get"
    }

    public var type: CeremonyType
    /// The challenge, base64url-encoded, as it appears in the JSON.
    public var challenge: String
    public var origin: String
    public var crossOrigin: Bool
    public var topOrigin: String?

    public init(type: CeremonyType, challenge: [UInt8], origin: String,
                crossOrigin: Bool = false, topOrigin: String? = nil) {
        self.type = type
        self.challenge = Base64URL.encode(challenge)
        self.origin = origin
        self.crossOrigin = crossOrigin
        self.topOrigin = topOrigin
    }

    /// The exact bytes a browser would produce (§5.8.1.1 "Serialization").
    public var json: [UInt8] {
        var text = "{\"type\":" + Self.quoted(type.rawValue)
        text += ",\"challenge\":" + Self.quoted(challenge)
        text += ",\"origin\":" + Self.quoted(origin)
        text += ",\"crossOrigin\":" + (crossOrigin ? "true" : "false")
        if let topOrigin { text += ",\"topOrigin\":" + Self.quoted(topOrigin) }
        text += "}"
        return Array(text.utf8)
    }

    /// Parses client data as a relying party receives it (a UTF-8 BOM is stripped, §7.1 step 5).
    public init(json bytes: [UInt8]) throws(WebAuthnError) {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        struct Wire: Decodable {
            var type: String
            var challenge: String
            var origin: String
            var crossOrigin: Bool?
            var topOrigin: String?
        }
        let wire: Wire
        do { wire = try JSONDecoder().decode(Wire.self, from: Data(body)) } catch {
            throw .malformed("clientDataJSON", reason: "not a JSON object with type, challenge and origin")
        }
        guard let type = CeremonyType(rawValue: wire.type) else {
            throw .malformed("clientDataJSON", reason: "unknown type \"\(wire.type)\"")
        }
        self.type = type
        self.challenge = wire.challenge
        self.origin = wire.origin
        self.crossOrigin = wire.crossOrigin ?? false
        self.topOrigin = wire.topOrigin
    }

    /// CCDToString's string serialisation: quote, escape `"` and `\`, and
    /// write control characters as \uXXXX.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                out += "\\u00" + Hexadecimal.encode([UInt8(truncatingIfNeeded: scalar.value)])
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
