import DevServerBase
/// grant_type=refresh_token (RFC 6749 §6) with rotation: each refresh spends
/// the token and returns a new one; presenting a spent one revokes the family.
extension OAuthServer {
    func refreshGrant(_ fields: FormFields, client: OAuthClient) async throws -> IssuedTokenResponse {
        guard let token = fields["refresh_token"] else { throw OAuthError.invalidRequest("refresh_token is required.") }
        guard token.utf8.count <= 256 else { throw OAuthError.invalidGrant("Unknown refresh token.") }
        var requested: [String]?
        if let scopeText = fields["scope"] {
            guard let scopes = Self.parseScopes(scopeText) else {
                throw OAuthError.invalidScope("Supported scopes: \(Self.supportedScopes.joined(separator: " ")).")
            }
            requested = scopes
        }
        switch await store.rotate(token, clientId: client.clientId, requestedScopes: requested) {
        case .unknown: throw OAuthError.invalidGrant("Unknown or revoked refresh token.")
        case .full: throw OAuthError.busy
        case .replayed:
            throw OAuthError.invalidGrant("The refresh token was already used; its whole family is now revoked.")
        case .widened:
            throw OAuthError.invalidScope("A refresh may narrow the granted scope, never widen it.")
        case .rotated(let family, let authorization, let next):
            // The new refresh token keeps the original grant (RFC 6749 §6);
            // only this access token is narrowed.
            return try await issueTokens(authorization, scopes: requested ?? authorization.scopes, refreshToken: next,
                                         family: family, includeNonce: false).response
        }
    }
}
