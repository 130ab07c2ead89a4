import DevServerBase
import FoundationEssentials

/// grant_type=authorization_code (RFC 6749 §4.1.3, RFC 7636 §4.6).
extension OAuthServer {
    func codeGrant(_ fields: FormFields, client: OAuthClient) async throws -> IssuedTokenResponse {
        guard let code = fields["code"] else { throw OAuthError.invalidRequest("code is required.") }
        guard let redirectURI = fields["redirect_uri"] else { throw OAuthError.invalidRequest("redirect_uri is required.") }
        let verifier = try Self.codeVerifier(fields)
        guard code.utf8.count <= 256 else { throw OAuthError.invalidGrant("Unknown code.") }
        let record: CodeRecord
        switch await store.redeemCode(code, now: now) {
        case .unknown: throw OAuthError.invalidGrant("Unknown code.")
        case .expired: throw OAuthError.invalidGrant("The code expired (codes live \(Int(CodeRecord.lifetime)) s).")
        case .replayed:
            throw OAuthError.invalidGrant("The code was already used; what it issued is revoked (RFC 6749 §4.1.2).")
        case .redeemed(let redeemed): record = redeemed
        }
        guard !record.interactionCode else {
            throw OAuthError.invalidGrant("This is an IDX interaction code: redeem it with grant_type=interaction_code.")
        }
        guard record.authorization.clientId == client.clientId else {
            throw OAuthError.invalidGrant("The code was issued to another client.")
        }
        guard record.redirectURI == redirectURI else {
            throw OAuthError.invalidGrant("redirect_uri differs from the one in the authorization request.")
        }
        guard PKCEVerification.verifier(verifier, matches: record.codeChallenge) else {
            throw OAuthError.invalidGrant("PKCE verification failed: code_verifier does not match code_challenge.")
        }
        return try await issue(for: record, code: code)
    }

    /// The PKCE verifier (RFC 7636 §4.1), required.
    static func codeVerifier(_ fields: FormFields) throws(OAuthError) -> String {
        guard let verifier = fields["code_verifier"] else {
            throw OAuthError.invalidRequest("code_verifier is required (PKCE).")
        }
        guard PKCEVerification.isValidVerifier(verifier) else {
            throw OAuthError.invalidRequest("code_verifier must be 43 to 128 characters from A-Z a-z 0-9 - . _ ~.")
        }
        return verifier
    }

    /// The tokens for a redeemed code (authorization or interaction code),
    /// recorded against it so a replay revokes them.
    func issue(for record: CodeRecord, code: String) async throws -> IssuedTokenResponse {
        let authorization = record.authorization
        let refresh = try await startFamilyIfGranted(authorization)
        let issued = try await issueTokens(authorization, scopes: authorization.scopes, refreshToken: refresh?.refreshToken,
                                           family: refresh?.family, includeNonce: true)
        await store.recordIssued(byCode: code, family: refresh?.family, accessToken: issued.jti,
                                 expiresAt: issued.expiresAt, now: now)
        return issued.response
    }
}
