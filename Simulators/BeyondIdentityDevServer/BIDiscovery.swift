import DevServerBase
import Hummingbird

/// GET APP/.well-known/openid-configuration and APP/.well-known/jwks.json:
/// what an OIDC relying party (the Okta-like server, or any other) reads first.
extension BIServer {
    struct Metadata: Encodable {
        let issuer: String
        let authorization_endpoint: String
        let token_endpoint: String
        let jwks_uri: String
        let response_types_supported = ["code"]
        let response_modes_supported = ["query"]
        let grant_types_supported = ["authorization_code"]
        let subject_types_supported = ["public"]
        let code_challenge_methods_supported = ["S256"]
        let id_token_signing_alg_values_supported = ["RS256"]
        let token_endpoint_auth_methods_supported = ["client_secret_basic", "client_secret_post"]
        let scopes_supported = ["openid"]
        let claims_supported = ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce"]
    }

    func discovery(_ request: Request) -> Response {
        OAuthResponse.json(Metadata(issuer: issuer, authorization_endpoint: issuer + "/authorize",
                                    token_endpoint: issuer + "/token", jwks_uri: jwksURL),
                           maxAge: OAuthResponse.metadataMaxAge)
    }

    func keys(_ request: Request) -> Response {
        OAuthResponse.json(signer.jwks, maxAge: OAuthResponse.metadataMaxAge)
    }
}
