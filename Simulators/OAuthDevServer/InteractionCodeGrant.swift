import DevServerBase
import FoundationEssentials

/// grant_type=interaction_code (Okta IDX): the code from
/// `successWithInteractionCode` and the PKCE verifier of the interact
/// request. Single-use (a replay gets invalid_grant and revokes what the
/// first redemption issued), 60 s, bound to the client; the same tokens as
/// the code flow, nonce included.
extension OAuthServer {
    static let interactionCodeGrant = "interaction_code"

    func interactionCodeGrant(_ fields: FormFields, client: OAuthClient) async throws -> IssuedTokenResponse {
        guard let code = fields["interaction_code"] else { throw OAuthError.invalidRequest("interaction_code is required.") }
        let verifier = try Self.codeVerifier(fields)
        guard code.utf8.count <= 256 else { throw OAuthError.invalidGrant("Unknown interaction code.") }
        let record: CodeRecord
        switch await store.redeemCode(code, now: now) {
        case .unknown: throw OAuthError.invalidGrant("Unknown interaction code.")
        case .expired: throw OAuthError.invalidGrant("The interaction code expired (it lives \(Int(CodeRecord.lifetime)) s).")
        case .replayed:
            throw OAuthError.invalidGrant("The interaction code was already used; what it issued is revoked.")
        case .redeemed(let redeemed): record = redeemed
        }
        guard record.interactionCode else {
            throw OAuthError.invalidGrant("This is an authorization code: redeem it with grant_type=authorization_code.")
        }
        guard record.authorization.clientId == client.clientId else {
            throw OAuthError.invalidGrant("The interaction code was issued to another client.")
        }
        // Okta's SDKs also send the client's redirect_uri and scope; when sent they must be the interact request's.
        if let redirectURI = fields["redirect_uri"], redirectURI != record.redirectURI {
            throw OAuthError.invalidGrant("redirect_uri differs from the one in the interact request.")
        }
        if let scope = fields["scope"], Self.parseScopes(scope) != record.authorization.scopes {
            throw OAuthError.invalidScope("scope differs from the one in the interact request (\(record.authorization.scopes.joined(separator: " "))).")
        }
        guard PKCEVerification.verifier(verifier, matches: record.codeChallenge) else {
            throw OAuthError.invalidGrant("PKCE verification failed.")
        }
        return try await issue(for: record, code: code)
    }
}
