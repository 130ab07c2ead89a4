import Base64
import Crypto
import DevServerBase
import FoundationEssentials
import WebAuthn

/// The three token kinds and their prefixes, as the hosted API names them.
package enum TokenKind: String, Sendable, CaseIterable {
    case register = "register_"
    case session = "session_"
    case verify = "verify_"

    var described: String {
        switch self {
        case .register: return "register token"
        case .session: return "session token"
        case .verify: return "verify token"
        }
    }
}

/// Seals claims into opaque, MAC-protected tokens and opens them again.
///
/// Layout (docs/DEVSERVER.md "Tokens"):
///
///     <prefix> base64url( version(1) = 0x01 ‖ claims (UTF-8 JSON) ‖ mac(32) )
///     mac = HMAC-SHA-256(key_kind, <prefix> ‖ version ‖ claims)
///     key_kind = HKDF-SHA-256(ikm: the app's 32-byte token key material,
///                             salt: "passkey-devserver tokens",
///                             info: "passkey-devserver-1|<appId>|<prefix>", 32 bytes)
///
/// A key per kind means a session token can never pass as a verify token,
/// even with its prefix rewritten. Claims are readable, not secret: like the
/// hosted API's, they hold only what the client sees anyway.
package struct TokenCodec: Sendable {
    static let version: UInt8 = 1
    static let macLength = 32
    /// Tokens longer than this are refused before decoding.
    static let maxLength = 16 * 1024

    private let keys: [TokenKind: SymmetricKey]

    package init(appId: String, keyMaterial: [UInt8]) {
        var keys: [TokenKind: SymmetricKey] = [:]
        for kind in TokenKind.allCases {
            keys[kind] = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: keyMaterial),
                salt: Array("passkey-devserver tokens".utf8),
                info: Array("passkey-devserver-1|\(appId)|\(kind.rawValue)".utf8),
                outputByteCount: 32)
        }
        self.keys = keys
    }

    func seal(_ claims: some Encodable, as kind: TokenKind) -> String {
        // Our claim types always encode; an empty object would fail to open, never pass.
        let json = (try? Self.claimsEncoder().encode(claims)).map(Array.init) ?? []
        let body = [Self.version] + json
        let mac = mac(body, kind: kind)
        return kind.rawValue + Base64URL.encode(body + mac)
    }

    /// Opens a token: prefix, base64url, version, MAC, then the claims. The
    /// caller checks expiry, so its error can say by how much.
    func open<Claims: Decodable>(_ token: String, as kind: TokenKind, _ type: Claims.Type) throws(APIProblem) -> Claims {
        guard token.hasPrefix(kind.rawValue) else {
            if let other = TokenKind.allCases.first(where: { token.hasPrefix($0.rawValue) }) {
                throw .invalidToken("Expected a \(kind.described) (\(kind.rawValue)…) but got a \(other.described).")
            }
            throw .invalidToken("Expected a \(kind.described) starting with \(kind.rawValue).")
        }
        guard token.utf8.count <= Self.maxLength else {
            throw .invalidTokenFormat("The \(kind.described) is longer than \(Self.maxLength) characters.")
        }
        guard let bytes = Base64URL.decode(token.dropFirst(kind.rawValue.count), padding: .refused) else {
            throw .invalidTokenFormat("The \(kind.described) is not base64url after its prefix.")
        }
        guard bytes.count > 1 + Self.macLength else {
            throw .invalidTokenFormat("The \(kind.described) is too short.")
        }
        guard bytes[0] == Self.version else {
            throw .invalidTokenFormat("The \(kind.described) has format version \(bytes[0]); this server writes version \(Self.version).")
        }
        let body = Array(bytes[..<(bytes.count - Self.macLength)])
        let mac = Array(bytes[(bytes.count - Self.macLength)...])
        guard let key = keys[kind],
              HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Array(kind.rawValue.utf8) + body, using: key) else {
            throw .invalidToken("The \(kind.described) was not issued by this server (or by this server before its keys changed).")
        }
        do {
            return try Self.claimsDecoder().decode(Claims.self, from: Data(body.dropFirst()))
        } catch {
            throw .invalidTokenFormat("The \(kind.described)'s claims are unreadable.")
        }
    }

    private func mac(_ body: [UInt8], kind: TokenKind) -> [UInt8] {
        guard let key = keys[kind] else { return [] }
        return Array(HMAC<SHA256>.authenticationCode(for: Array(kind.rawValue.utf8) + body, using: key))
    }

    private static func claimsEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    private static func claimsDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}
