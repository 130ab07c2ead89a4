import DevServerBase
/// grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4, §3.5).
extension OAuthServer {
    func deviceGrant(_ fields: FormFields, client: OAuthClient) async throws -> IssuedTokenResponse {
        guard let deviceCode = fields["device_code"] else { throw OAuthError.invalidRequest("device_code is required.") }
        guard deviceCode.utf8.count <= 256 else { throw OAuthError.invalidGrant("Unknown device code.") }
        switch await store.poll(deviceCode: deviceCode, clientId: client.clientId, now: now) {
        case .unknown: throw OAuthError.invalidGrant("Unknown device code.")
        case .expired: throw OAuthError(error: "expired_token", description: "The device code expired; start again.")
        case .pending:
            throw OAuthError(error: "authorization_pending", description: "The user has not yet approved the request.")
        case .slowDown:
            throw OAuthError(error: "slow_down", description: "Polled too soon; wait 5 s longer between polls from now on.")
        case .denied: throw OAuthError(error: "access_denied", description: "The user denied the request.")
        case .redeemed: throw OAuthError.invalidGrant("The device code was already redeemed.")
        case .approved(let authorization):
            let refresh = try await startFamilyIfGranted(authorization)
            return try await issueTokens(authorization, scopes: authorization.scopes, refreshToken: refresh?.refreshToken,
                                         family: refresh?.family, includeNonce: false).response
        }
    }
}
