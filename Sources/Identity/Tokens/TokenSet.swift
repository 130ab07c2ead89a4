import FoundationEssentials

/// One account's OAuth 2.0 / OpenID Connect tokens, and what is needed to
/// refresh them. Stored as one vault entry (docs/VAULT.md, "Token entries").
public struct TokenSet: Codable, Sendable, Equatable {
    public var accessToken: String
    /// "Bearer", usually.
    public var tokenType: String
    public var refreshToken: String?
    public var idToken: String?
    public var scope: String?
    /// When the access token expires, in seconds since 1970 (UTC); nil when
    /// the server did not say. Within ±(2^53 - 1) (`OutsideSeconds.latest`).
    public var expiresAt: Int64?
    public var issuer: String
    public var clientId: String
    /// A confidential client's secret (`passkey login --client-secret-stdin`),
    /// sent with each refresh as `client_secret` (RFC 6749 §2.3.1); nil for
    /// public clients. A secret: it lives in the vault with the tokens.
    public var clientSecret: String?
    public var tokenEndpoint: String
    /// When the set was stored or last refreshed, in seconds since 1970.
    public var updatedAt: Int64

    public init(accessToken: String, tokenType: String, refreshToken: String? = nil, idToken: String? = nil,
                scope: String? = nil, expiresAt: Int64?, issuer: String, clientId: String, tokenEndpoint: String,
                updatedAt: Int64) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
        self.expiresAt = expiresAt
        self.issuer = issuer
        self.clientId = clientId
        self.tokenEndpoint = tokenEndpoint
        self.updatedAt = updatedAt
    }

    /// Whether the access token still lasts `seconds` from `now`. A token
    /// whose server gave no lifetime is taken as valid: there is nothing to
    /// judge it by, and refreshing it on every request would hammer the server.
    /// `expiresAt` comes from outside (a server, a JWT, a stored entry) and
    /// may be anything from -2^63 to 2^63-1: the difference is taken without
    /// overflow, and one too large for `Int64` is far past or far future.
    public func isValid(for seconds: Int, now: Int64) -> Bool {
        Self.isValid(expiringAt: expiresAt, for: seconds, now: now)
    }

    /// `isValid(for:now:)` for an access token expiring at `expiresAt`.
    public static func isValid(expiringAt expiresAt: Int64?, for seconds: Int, now: Int64) -> Bool {
        guard let expiresAt else { return true }
        let (remaining, overflow) = expiresAt.subtractingReportingOverflow(now)
        if overflow { return expiresAt > now }
        return remaining >= Int64(clamping: seconds)
    }

    /// The claims of the ID token (or, failing that, of a JWT access token), for display.
    public var claims: JWTClaims? {
        idToken.flatMap(JWTClaims.init(jwt:)) ?? JWTClaims(jwt: accessToken)
    }

    /// The vault payload: this set as JSON.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? Array(encoder.encode(self))) ?? []
    }

    public init(decoding payload: [UInt8], account: String) throws(TokenError) {
        do {
            self = try JSONDecoder().decode(TokenSet.self, from: Data(payload))
        } catch {
            throw .damagedTokenSet(account: account, reason: "not a token set")
        }
        // An entry written before times were bounded (or by someone else)
        // may hold any Int64: bounded as new ones are, so it can be shown.
        expiresAt = expiresAt.map(OutsideSeconds.instant)
        updatedAt = OutsideSeconds.instant(updatedAt)
    }

    /// Seconds since 1970 now.
    public static func now() -> Int64 {
        Int64(Date().timeIntervalSince1970)
    }
}
