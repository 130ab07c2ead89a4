import DevServerBase
import FoundationEssentials
import Hummingbird
import OAuthDevServer

/// POST {issuer}/v1/interact: starts an IDX transaction for a public client
/// with PKCE S256 (required, as Okta requires it of clients without a
/// secret), checked as the authorization endpoint checks its request.
extension IDXServer {
    struct InteractAnswer: Encodable { let interaction_handle: String }

    func interact(_ request: Request) async -> Response {
        do throws(OAuthError) {
            let fields = try await request.formFields()
            let client = try oauth.authenticateClient(request, fields)
            let interaction = try Self.interaction(fields, client: client)
            let handle: String
            do {
                handle = try await store.start(interaction, expiresAt: now.addingTimeInterval(stateLifetime), now: now)
            } catch { throw OAuthError.busy }
            return OAuthResponse.json(InteractAnswer(interaction_handle: handle))
        } catch {
            return OAuthResponse.error(error)
        }
    }

    /// The interact form's checks, in the authorization request's order.
    static func interaction(_ fields: FormFields, client: OAuthClient) throws(OAuthError) -> IDXInteraction {
        guard let redirectURI = fields["redirect_uri"] else { throw .invalidRequest("redirect_uri is required.") }
        guard client.accepts(redirectURI: redirectURI) else {
            throw .invalidRequest("redirect_uri is not registered for client \(client.clientId) "
                                  + "(loopback ones match on any port, RFC 8252 §7.3).")
        }
        for name in ["recovery_token", "activation_token", "acr_values", "request", "request_uri"] where fields[name] != nil {
            throw .invalidRequest("\(name) is not supported by the devserver.")
        }
        if let responseType = fields["response_type"], responseType != "code" {
            throw OAuthError(error: "unsupported_response_type", description: "Only response_type=code is supported.")
        }
        if let maxAge = fields["max_age"], maxAge.utf8.count > 10 || Int(maxAge).map({ $0 < -1 }) ?? true {
            throw .invalidRequest("max_age must be a whole number of seconds (-1 for none).")
        }
        guard let scopeText = fields["scope"] else { throw .invalidRequest("scope is required.") }
        guard let scopes = OAuthServer.parseScopes(scopeText) else {
            throw .invalidScope("Supported scopes: \(OAuthServer.supportedScopes.joined(separator: " ")).")
        }
        guard let challenge = fields["code_challenge"] else {
            throw .invalidRequest("PKCE code challenge is required when the token endpoint authentication method is 'NONE'.")
        }
        guard fields["code_challenge_method"] == "S256" else {
            throw .invalidRequest("code_challenge_method must be S256; plain is refused.")
        }
        guard PKCEVerification.isValidChallenge(challenge) else {
            throw .invalidRequest("code_challenge must be 43 base64url characters, BASE64URL(SHA-256(verifier)).")
        }
        guard let state = fields["state"] else { throw .invalidRequest("state is required.") }
        guard state.utf8.count <= ValidatedAuthorizationRequest.maxStateLength else {
            throw .invalidRequest("state is longer than \(ValidatedAuthorizationRequest.maxStateLength) bytes.")
        }
        if let nonce = fields["nonce"], nonce.utf8.count > ValidatedAuthorizationRequest.maxHintLength {
            throw .invalidRequest("nonce is longer than \(ValidatedAuthorizationRequest.maxHintLength) bytes.")
        }
        return IDXInteraction(clientId: client.clientId, redirectURI: redirectURI, scopes: scopes, state: state,
                              nonce: fields["nonce"], codeChallenge: challenge)
    }
}
