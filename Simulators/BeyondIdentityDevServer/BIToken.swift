import Crypto
import DevServerBase
import FoundationEssentials
import Hummingbird

/// POST APP/token: the authorization code grant for the confidential client
/// `bi-okta` (client_secret_basic or client_secret_post, exactly one). The
/// code is single-use and bound to its redirect URI (and to a PKCE challenge
/// when /authorize had one). The ID token is RS256, `sub` the username.
extension BIServer {
    package struct TokenAnswer: Encodable, Sendable {
        let access_token: String
        var token_type = "Bearer"
        let expires_in: Int
        package let id_token: String
    }

    static let tokenLifetime = 3600

    func token(_ request: Request) async -> Response {
        do {
            let fields = try await request.formFields()
            let secret = try Self.clientSecret(request, fields)
            return OAuthResponse.json(try await exchange(fields, clientSecret: secret))
        } catch {
            return OAuthResponse.error(error)
        }
    }

    /// The grant itself, also called in process by the Okta-like server.
    package func exchange(_ fields: FormFields, clientSecret: String) async throws(OAuthError) -> TokenAnswer {
        // Digest equality is constant-time in swift-crypto.
        guard SHA256.hash(data: Array(clientSecret.utf8)) == SHA256.hash(data: Array(Self.clientSecret.utf8)) else {
            throw .invalidClient("Client authentication failed.")
        }
        guard fields["grant_type"] == "authorization_code" else {
            throw OAuthError(error: "unsupported_grant_type", description: "Only authorization_code is supported.")
        }
        guard let code = fields["code"], code.utf8.count <= 256 else { throw .invalidRequest("code is required.") }
        guard let redirectURI = fields["redirect_uri"] else { throw .invalidRequest("redirect_uri is required.") }
        let record: BICode
        switch await store.redeemCode(code, now: now) {
        case .unknown: throw .invalidGrant("Unknown code.")
        case .expired: throw .invalidGrant("The code expired (codes live \(Int(BICode.lifetime)) s).")
        case .replayed: throw .invalidGrant("The code was already used.")
        case .redeemed(let redeemed): record = redeemed
        }
        guard record.redirectURI == redirectURI else { throw .invalidGrant("redirect_uri differs from the one in the authorization request.") }
        if let challenge = record.codeChallenge {
            guard let verifier = fields["code_verifier"], PKCEVerification.isValidVerifier(verifier), PKCEVerification.verifier(verifier, matches: challenge) else {
                throw .invalidGrant("PKCE verification failed.")
            }
        }
        let issuedAt = now
        let claims = BIIDTokenClaims(iss: issuer, sub: record.username, aud: Self.clientId,
                                     exp: issuedAt.addingTimeInterval(TimeInterval(Self.tokenLifetime)).numericDate,
                                     iat: issuedAt.numericDate, auth_time: record.authTime.numericDate, nonce: record.clientNonce)
        do {
            let idToken = try await signer.sign(claims)
            return TokenAnswer(access_token: OpaqueSecret.make(), expires_in: Self.tokenLifetime, id_token: idToken)
        } catch {
            throw .serverError
        }
    }

    /// The client's secret from exactly one of client_secret_basic and
    /// client_secret_post, after checking the client id.
    static func clientSecret(_ request: Request, _ fields: FormFields) throws(OAuthError) -> String {
        let presented = try ClientCredentials.presented(request, fields)
        guard presented.clientId == clientId else { throw .invalidClient("Unknown client_id.") }
        guard let secret = presented.secret else { throw .invalidClient("This client is confidential: send its secret.") }
        return secret
    }
}
