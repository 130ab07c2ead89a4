import DevServerBase
import Hummingbird

/// GET {issuer}/.well-known/openid-configuration (OIDC Discovery §3), its RFC 8414 twin,
/// and GET {issuer}/v1/keys (the JWKS).
extension OAuthServer {
    struct Metadata: Encodable {
        let issuer: String
        let authorization_endpoint: String
        let token_endpoint: String
        let jwks_uri: String
        let userinfo_endpoint: String
        let revocation_endpoint: String?
        let device_authorization_endpoint: String?
        let response_types_supported = ["code"]
        let response_modes_supported = ["query"]
        let grant_types_supported = ["authorization_code", "refresh_token", OAuthServer.deviceCodeGrant, OAuthServer.interactionCodeGrant]
        let subject_types_supported = ["public"]
        let code_challenge_methods_supported = ["S256"]
        let id_token_signing_alg_values_supported = ["ES256", "RS256"]
        let token_endpoint_auth_methods_supported: [String]
        let revocation_endpoint_auth_methods_supported: [String]
        let scopes_supported = OAuthServer.supportedScopes
        let claims_supported = ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "name", "email"]
        let authorization_response_iss_parameter_supported = true
        let request_parameter_supported = false
        let request_uri_parameter_supported = false
    }

    func discovery(_ request: Request) -> Response {
        OAuthResponse.json(metadata(omitting: configuration.omittedFromDiscovery), maxAge: OAuthResponse.metadataMaxAge)
    }

    /// GET /.well-known/oauth-authorization-server/oauth2/default (RFC 8414 §3.1:
    /// the well-known suffix goes between the host and the issuer's path).
    func authorizationServerMetadata(_ request: Request) -> Response {
        OAuthResponse.json(metadata(omitting: configuration.omittedFromMetadata), maxAge: OAuthResponse.metadataMaxAge)
    }

    private func metadata(omitting omitted: Set<AdvertisedEndpoint>) -> Metadata {
        Metadata(issuer: issuer, authorization_endpoint: issuer + "/v1/authorize", token_endpoint: issuer + "/v1/token",
                 jwks_uri: issuer + "/v1/keys", userinfo_endpoint: issuer + "/v1/userinfo",
                 revocation_endpoint: omitted.contains(.revocation) ? nil : issuer + "/v1/revoke",
                 device_authorization_endpoint: omitted.contains(.deviceAuthorization) ? nil : issuer + "/v1/device/authorize",
                 token_endpoint_auth_methods_supported: authenticationMethods, revocation_endpoint_auth_methods_supported: authenticationMethods)
    }

    /// `none` for public clients, and the two secret methods once a confidential client is registered.
    private var authenticationMethods: [String] {
        ["none"] + (clients.anyConfidential ? ["client_secret_basic", "client_secret_post"] : [])
    }

    func keys(_ request: Request) -> Response {
        OAuthResponse.json(signer.jwks, maxAge: OAuthResponse.metadataMaxAge)
    }
}
