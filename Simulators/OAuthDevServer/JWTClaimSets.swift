import JWTKit

/// An access token's claims, Okta-shaped: `iss`, `sub`, `aud` (`api://default`),
/// `cid` (the client), `scp` (the scopes), `exp`, `iat`, `jti`.
struct AccessTokenClaims: JWTPayload, Equatable {
    static let audience = "api://default"

    var iss: String
    var sub: String
    var aud: String
    var cid: String
    var scp: [String]
    var exp: Int64
    var iat: Int64
    var jti: String

    /// Claims are checked by `OAuthServer.checkAccessToken`, against the server's clock.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// An ID token's claims (OIDC Core §2). `nonce` only in the code flow's first
/// token; a refreshed one repeats `iss`, `sub`, `aud` and `auth_time` with a
/// new `iat` (§12.2). `name` and `email` when the scope asks and the server
/// knows them.
struct MintedIDTokenClaims: JWTPayload, Equatable {
    var iss: String
    var sub: String
    var aud: String
    var exp: Int64
    var iat: Int64
    var auth_time: Int64
    var nonce: String?
    var name: String?
    var email: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
