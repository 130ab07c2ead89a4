import DevServerBase
/// A validated `/v1/authorize` request (RFC 6749 §4.1.1, RFC 7636 §4.3, OIDC Core §3.1.2.1).
package struct ValidatedAuthorizationRequest: Sendable {
    package static let maxStateLength = 2048
    package static let maxHintLength = 512

    let client: OAuthClient
    package let redirectURI: String
    package let state: String
    let scopes: [String]
    let nonce: String?
    package let codeChallenge: String
    let loginHint: String?
    /// An external IdP to send the person to (Okta's `idp=`), checked by the route.
    let idp: String?

    /// Why a request is refused: before the redirect URI is trusted, a page
    /// for the person at the browser; after, an error sent back to the client.
    package enum Refusal: Error {
        case page(String)
        case redirect(uri: String, error: String, description: String, state: String?)
    }

    /// Validates the query in order: client, redirect URI (both refused on a
    /// page, since redirecting to an unchecked URI would make this an open
    /// redirector), then everything else (refused by redirect).
    package static func parse(_ query: () throws(FormFields.Problem) -> FormFields, clients: OAuthClients) throws(Refusal) -> ValidatedAuthorizationRequest {
        let fields: FormFields
        do { fields = try query() } catch {
            throw .page(OAuthError.from(error).description)
        }
        guard let clientId = fields["client_id"] else { throw .page("The request has no client_id.") }
        guard let client = clients[clientId] else {
            throw .page("Unknown client_id \"\(clientId.prefix(128))\". Register it with --oauth-client ID=REDIRECT.")
        }
        guard let redirectURI = fields["redirect_uri"] else { throw .page("The request has no redirect_uri.") }
        guard client.accepts(redirectURI: redirectURI) else {
            throw .page("redirect_uri \"\(redirectURI.prefix(256))\" is not registered for client \(clientId). "
                        + "Registered: \(client.redirectURIs.map(\.registered).joined(separator: ", ")) "
                        + "(loopback ones on any port, RFC 8252 §7.3).")
        }

        let state = fields["state"].flatMap { $0.utf8.count <= maxStateLength ? $0 : nil }
        func refuse(_ error: String, _ description: String) -> Refusal {
            .redirect(uri: redirectURI, error: error, description: description, state: state)
        }
        if fields["request"] != nil { throw refuse("request_not_supported", "Request objects are not supported.") }
        if fields["request_uri"] != nil { throw refuse("request_uri_not_supported", "request_uri is not supported.") }
        guard let responseType = fields["response_type"] else { throw refuse("invalid_request", "response_type is required.") }
        guard responseType == "code" else {
            throw refuse("unsupported_response_type", "Only response_type=code is supported.")
        }
        if let mode = fields["response_mode"], mode != "query" {
            throw refuse("invalid_request", "Only response_mode=query is supported.")
        }
        guard let sentState = fields["state"] else { throw refuse("invalid_request", "state is required.") }
        guard sentState.utf8.count <= maxStateLength else {
            throw refuse("invalid_request", "state is longer than \(maxStateLength) bytes.")
        }
        guard let scopeText = fields["scope"] else { throw refuse("invalid_request", "scope is required.") }
        guard let scopes = OAuthServer.parseScopes(scopeText) else {
            throw refuse("invalid_scope", "Supported scopes: \(OAuthServer.supportedScopes.joined(separator: " ")).")
        }
        guard let method = fields["code_challenge_method"] else {
            throw refuse("invalid_request", "PKCE is required: send code_challenge_method=S256 (plain is refused).")
        }
        guard method == "S256" else { throw refuse("invalid_request", "code_challenge_method must be S256; plain is refused.") }
        guard let challenge = fields["code_challenge"] else {
            throw refuse("invalid_request", "PKCE is required: send code_challenge (RFC 7636).")
        }
        guard PKCEVerification.isValidChallenge(challenge) else {
            throw refuse("invalid_request", "code_challenge must be 43 base64url characters, BASE64URL(SHA-256(verifier)).")
        }
        for name in ["nonce", "login_hint", "idp"] {
            if let value = fields[name], value.utf8.count > maxHintLength {
                throw refuse("invalid_request", "\(name) is longer than \(maxHintLength) bytes.")
            }
        }
        if let prompt = fields["prompt"], prompt.split(separator: " ").contains("none") {
            throw refuse("login_required", "prompt=none: the devserver keeps no browser session, so a user must sign in.")
        }
        return ValidatedAuthorizationRequest(client: client, redirectURI: redirectURI, state: sentState, scopes: scopes,
                                             nonce: fields["nonce"], codeChallenge: challenge, loginHint: fields["login_hint"],
                                             idp: fields["idp"])
    }
}
