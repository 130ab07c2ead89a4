import DecodingErrors
import FoundationEssentials
import Tokens

/// The claims of an ID token that a login keeps: who (`iss`, `sub`), for
/// whom (`aud`, `azp`), when, and the profile claims worth showing. Times
/// are whole seconds since 1970, saturated to ±(2^53 - 1).
public struct IDTokenClaims: Codable, Sendable, Equatable {
    public var issuer: String
    public var subject: String
    public var audience: [String]
    public var authorizedParty: String?
    public var expiresAt: Int64
    public var issuedAt: Int64
    public var authTime: Int64?
    public var email: String?
    public var name: String?
    public var preferredUsername: String?

    public init(issuer: String, subject: String, audience: [String], authorizedParty: String? = nil, expiresAt: Int64,
                issuedAt: Int64, authTime: Int64? = nil, email: String? = nil, name: String? = nil,
                preferredUsername: String? = nil) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.authorizedParty = authorizedParty
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.authTime = authTime
        self.email = email
        self.name = name
        self.preferredUsername = preferredUsername
    }

    /// The claims of an ID token validated at an earlier login (kept in the
    /// vault), read again WITHOUT checking signature or times: the `previous`
    /// of `IDTokenValidator.validateRefreshed`. Never for a token from outside.
    public init(previouslyValidated idToken: String) throws(OpenIDError) {
        self = try IDTokenPayload.decode(compact: idToken).claims
    }
}

/// An ID token's payload as sent: the claims above plus those only checked
/// (`nonce`, `nbf`). Numbers may be any JSON number (RFC 7519's NumericDate);
/// they are read exactly and saturated (`OutsideSeconds`), never trapping.
struct IDTokenPayload: Sendable {
    var claims: IDTokenClaims
    var nonce: String?
    var notBefore: Int64?

    /// The payload of a compact JWS, unverified: the signature is jwt-kit's job.
    static func decode(compact token: String) throws(OpenIDError) -> IDTokenPayload {
        let parts = try CompactJWS(token)
        return try decode(json: parts.payload)
    }

    static func decode(json: [UInt8]) throws(OpenIDError) -> IDTokenPayload {
        let raw: Raw
        do {
            raw = try JSONDecoder().decode(Raw.self, from: Data(json))
        } catch {
            guard let problem = DecodingProblem(error) else { throw .idToken(.malformed("the claims are not JSON")) }
            if let missing = problem.missingMemberPath { throw .idToken(.malformed("`\(missing)` is missing")) }
            if problem.path.isEmpty { throw .idToken(.malformed("the claims are not a JSON object")) }
            throw .idToken(.malformed("`\(problem.path)` has the wrong type"))
        }
        guard !raw.iss.isEmpty else { throw .idToken(.malformed("`iss` is empty")) }
        guard !raw.sub.isEmpty else { throw .idToken(.malformed("`sub` is empty")) }
        guard !raw.aud.values.isEmpty else { throw .idToken(.malformed("`aud` is empty")) }
        func seconds(_ value: Double?, _ member: String) throws(OpenIDError) -> Int64? {
            guard let value else { return nil }
            guard let whole = OutsideSeconds.whole(value) else { throw .idToken(.malformed("`\(member)` is not a number")) }
            return OutsideSeconds.instant(whole)
        }
        guard let expiresAt = try seconds(raw.exp, "exp") else { throw .idToken(.malformed("`exp` is missing")) }
        guard let issuedAt = try seconds(raw.iat, "iat") else { throw .idToken(.malformed("`iat` is missing")) }
        let claims = IDTokenClaims(issuer: raw.iss, subject: raw.sub, audience: raw.aud.values, authorizedParty: raw.azp,
                                   expiresAt: expiresAt, issuedAt: issuedAt, authTime: try seconds(raw.auth_time, "auth_time"),
                                   email: raw.email, name: raw.name, preferredUsername: raw.preferred_username)
        return IDTokenPayload(claims: claims, nonce: raw.nonce, notBefore: try seconds(raw.nbf, "nbf"))
    }

    private struct Raw: Decodable {
        var iss: String
        var sub: String
        var aud: Audience
        var azp: String?
        var exp: Double?
        var iat: Double?
        var auth_time: Double?
        var nbf: Double?
        var nonce: String?
        // Profile claims are shown, never decided on: one of another type is left out.
        var email: String?
        var name: String?
        var preferred_username: String?

        private enum CodingKeys: String, CodingKey {
            case iss, sub, aud, azp, exp, iat, auth_time, nbf, nonce, email, name, preferred_username
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            iss = try container.decode(String.self, forKey: .iss)
            sub = try container.decode(String.self, forKey: .sub)
            aud = try container.decode(Audience.self, forKey: .aud)
            azp = try container.decodeIfPresent(String.self, forKey: .azp)
            exp = try container.decodeIfPresent(Double.self, forKey: .exp)
            iat = try container.decodeIfPresent(Double.self, forKey: .iat)
            auth_time = try container.decodeIfPresent(Double.self, forKey: .auth_time)
            nbf = try container.decodeIfPresent(Double.self, forKey: .nbf)
            nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
            email = try? container.decodeIfPresent(String.self, forKey: .email)
            name = try? container.decodeIfPresent(String.self, forKey: .name)
            preferred_username = try? container.decodeIfPresent(String.self, forKey: .preferred_username)
        }
    }

    /// `aud`: one string or an array of strings (RFC 7519 §4.1.3).
    private struct Audience: Decodable {
        var values: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let one = try? container.decode(String.self) { values = [one] } else { values = try container.decode([String].self) }
        }
    }
}
