import DevServerBase
import FoundationEssentials
import Hummingbird

/// POST {issuer}/v1/revoke (RFC 7009). 200 for any token, known or not, so
/// the answer reveals nothing. A refresh token takes its whole family and its
/// access tokens with it; an access token is refused by /v1/userinfo from then on.
/// A token issued to another client is left alone (§2.1), still with 200.
extension OAuthServer {
    func revoke(_ request: Request) async -> Response {
        do {
            let fields = try await request.formFields()
            let client = try authenticateClient(request, fields)
            guard let token = fields["token"] else { throw OAuthError.invalidRequest("token is required.") }
            // token_type_hint is optional and only a hint (§2.1): both kinds are tried.
            if await store.revokeRefreshToken(token, clientId: client.clientId) { return revoked }
            if let claims = await signer.verifiedAccessToken(token), claims.iss == issuer, claims.cid == client.clientId {
                await store.revokeAccessToken(jti: claims.jti, expiresAt: Date(timeIntervalSince1970: TimeInterval(claims.exp)))
            }
            return revoked
        } catch let error as OAuthError {
            return OAuthResponse.error(error)
        } catch {
            return OAuthResponse.error(.serverError)
        }
    }

    private var revoked: Response { OAuthResponse.json([String: String]()) }
}
