import DevServerBase
import FoundationEssentials
import HTTPTypes
import Hummingbird

/// GET/POST {issuer}/v1/userinfo (OIDC Core §5.3) with a Bearer access token
/// (RFC 6750 §2.1). Refusals are 401 with `WWW-Authenticate: Bearer error="invalid_token"`.
extension OAuthServer {
    struct UserInfoResponse: Encodable {
        let sub: String
        let name: String?
        let email: String?
    }

    func userInfo(_ request: Request) async -> Response {
        guard let header = request.headers[.authorization] else {
            return bearerChallenge(status: .unauthorized, error: nil, "Send Authorization: Bearer <access token>.")
        }
        guard header.utf8.count <= 8 * 1024, header.lowercased().hasPrefix("bearer "),
              let claims = await checkAccessToken(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)) else {
            return bearerChallenge(status: .unauthorized, error: "invalid_token",
                                   "The access token is invalid, expired or revoked.")
        }
        guard claims.scp.contains("openid") else {
            return bearerChallenge(status: .forbidden, error: "insufficient_scope", "The access token lacks the openid scope.")
        }
        let profile = await profile(of: claims.sub)
        return OAuthResponse.json(UserInfoResponse(sub: claims.sub, name: claims.scp.contains("profile") ? profile.name : nil,
                                                   email: claims.scp.contains("email") ? profile.email : nil))
    }

    /// The claims of a live access token of this server: its signature (the
    /// ES256 key), `iss`, `aud`, `exp`, and not revoked.
    func checkAccessToken(_ token: String) async -> AccessTokenClaims? {
        guard let claims = await signer.verifiedAccessToken(token), claims.iss == issuer,
              claims.aud == AccessTokenClaims.audience, now.timeIntervalSince1970 < Double(claims.exp),
              await !store.isRevoked(jti: claims.jti) else { return nil }
        return claims
    }

    private func bearerChallenge(status: HTTPResponse.Status, error: String?, _ description: String) -> Response {
        var response = OAuthResponse.json(["error": error ?? "invalid_request", "error_description": description], status: status)
        var challenge = "Bearer realm=\"\(issuer)\""
        if let error { challenge += ", error=\"\(error)\", error_description=\"\(description)\"" }
        response.headers[.wwwAuthenticate] = challenge
        return response
    }
}
