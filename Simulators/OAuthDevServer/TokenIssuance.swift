import DevServerBase
import FoundationEssentials
import Hexadecimal

/// The token response (RFC 6749 §5.1, OIDC Core §3.1.3.3).
struct IssuedTokenResponse: Encodable, Sendable {
    let access_token: String
    var token_type = "Bearer"
    let expires_in: Int
    let scope: String
    let refresh_token: String?
    let id_token: String?
}

extension OAuthServer {
    /// Mints an access token (always ES256) and, when `scopes` has `openid`,
    /// an ID token; records the access token in the refresh family.
    /// `nonce` only for the code flow's first ID token (OIDC Core §12.2).
    func issueTokens(_ authorization: Authorization, scopes: [String], refreshToken: String?, family: String?,
                     includeNonce: Bool) async throws -> (response: IssuedTokenResponse, jti: String, expiresAt: Date) {
        let issuedAt = now
        let lifetime = accessTokenLifetime
        // JWT `exp` is whole seconds. Rounding the expiry up, not down, keeps
        // a token live for at least the `expires_in` the response promises:
        // truncated, a 1 s token minted at x.95 s would die 50 ms later.
        let expiresAt = Date(timeIntervalSince1970: issuedAt.addingTimeInterval(lifetime).timeIntervalSince1970.rounded(.up))
        let jti = "AT." + Hexadecimal.encode(AppKeys.randomBytes(16))
        let access = AccessTokenClaims(iss: issuer, sub: authorization.sub, aud: AccessTokenClaims.audience,
                                       cid: authorization.clientId, scp: scopes, exp: expiresAt.numericDate,
                                       iat: issuedAt.numericDate, jti: jti)
        let accessToken = try await signer.sign(access, with: .es256)
        var idToken: String?
        if scopes.contains("openid") {
            let profile = await profile(of: authorization.sub)
            let claims = MintedIDTokenClaims(iss: issuer, sub: authorization.sub, aud: authorization.clientId,
                                             exp: expiresAt.numericDate, iat: issuedAt.numericDate,
                                             auth_time: authorization.authTime.numericDate,
                                             nonce: includeNonce ? authorization.nonce : nil,
                                             name: scopes.contains("profile") ? profile.name : nil,
                                             email: scopes.contains("email") ? profile.email : nil)
            idToken = try await signer.sign(claims, with: configuration.idTokenAlgorithm)
        }
        if let family { await store.addAccessToken(jti, expiresAt: expiresAt, family: family, now: issuedAt) }
        let response = IssuedTokenResponse(access_token: accessToken, expires_in: Int(lifetime.rounded()),
                                           scope: scopes.joined(separator: " "), refresh_token: refreshToken, id_token: idToken)
        return (response, jti, expiresAt)
    }

    /// A refresh family for `cli` always, for other clients when `offline_access` was granted.
    func startFamilyIfGranted(_ authorization: Authorization) async throws(OAuthError) -> (family: String, refreshToken: String)? {
        guard authorization.clientId == OAuthClient.cliClientId || authorization.scopes.contains("offline_access") else { return nil }
        do { return try await store.startFamily(authorization, now: now) } catch { throw .busy }
    }
}
