import FoundationEssentials

/// The registered claims of a JWT (RFC 7519 §4.1) that `token list` shows:
/// subject, issuer, audience, expiry, issue time.
///
/// Display only: the signature is NOT checked (the agent is not the token's
/// audience and holds no issuer keys), so nothing here may be trusted for a
/// decision. A token that is not a JWT simply has no claims.
public struct JWTClaims: Codable, Sendable, Equatable {
    public var subject: String?
    public var issuer: String?
    public var audience: [String]
    public var expiresAt: Int64?
    public var issuedAt: Int64?

    /// Decodes the payload of a compact JWS (`header.payload.signature`); nil
    /// when `jwt` is not one.
    public init?(jwt: String) {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Self.base64URLDecode(parts[1]),
              let claims = try? JSONDecoder().decode(RawClaims.self, from: Data(payload)) else { return nil }
        subject = claims.sub
        issuer = claims.iss
        audience = claims.aud?.values ?? []
        // Any JSON number, saturated rather than refused: an `exp` of -1e300
        // still reads as long expired (so the token is refreshed), 1e300 as
        // far future, and neither traps.
        expiresAt = claims.exp.flatMap(OutsideSeconds.whole).map(OutsideSeconds.instant)
        issuedAt = claims.iat.flatMap(OutsideSeconds.whole).map(OutsideSeconds.instant)
    }

    private struct RawClaims: Decodable {
        var sub: String?
        var iss: String?
        var aud: Audience?
        var exp: Double?
        var iat: Double?
    }

    /// `aud` is a string or an array of strings (RFC 7519 §4.1.3).
    private struct Audience: Decodable {
        var values: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let one = try? container.decode(String.self) { values = [one] } else { values = try container.decode([String].self) }
        }
    }

    static func base64URLDecode(_ text: Substring) -> [UInt8]? {
        guard text.count <= 64 * 1024 else { return nil }
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { Array($0) }
    }
}
