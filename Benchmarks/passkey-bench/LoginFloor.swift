import FoundationEssentials
import HTTPTransport
import OpenID

/// The floor of a browser-flow login: what no implementation can avoid,
/// done bare by the benchmark against the same authorization server — a
/// one-shot loopback listener for the redirect (RFC 8252 §7.3), the
/// browser's three requests (authorization page, consent, callback), the
/// token request with the PKCE verifier, and one ID-token check (signature
/// against the provider's keys, already fetched, and the claims). No agent,
/// no socket, nothing stored.
struct LoginFloor: Sendable {
    /// Each step's time, in nanoseconds.
    struct Steps: Sendable {
        var listener: Int64
        var browser: LoginBrowser.Steps
        var token: Int64
        var idToken: Int64

        var total: Int64 { listener + browser.authorize + browser.consent + browser.callback + token + idToken }
    }

    let browser: LoginBrowser
    let transport: HTTPTransport
    let metadata: ProviderMetadata
    /// Over a provider whose metadata and key set are fetched: a login's
    /// first discovery is not in the floor, as it is not in the agent's warm logins.
    let validator: IDTokenValidator
    let clientId: String
    let scopes: [String]

    private struct TokenAnswer: Decodable {
        var id_token: String?
    }

    func login() async throws(BenchError) -> Steps {
        let clock = ContinuousClock()
        let start = clock.now
        let state = PKCE().verifier
        let listener = try await BenchError.awaiting("starting a callback listener") {
            try await CallbackListener.start(expectedState: state)
        }
        defer { listener.close() }
        let request = AuthorizationRequest(redirectURI: listener.redirectURI, state: state, nonce: PKCE().verifier, pkce: PKCE())
        let url = request.url(metadata: metadata, clientId: clientId, scopes: scopes)
        let listening = clock.now
        let browsed = try await browser.signIn(at: url, redirectURI: listener.redirectURI)
        let browsedAt = clock.now
        let code = try await BenchError.awaiting("reading the callback") {
            try request.code(fromRedirect: try await listener.callback(), metadata: metadata)
        }
        let answer = try await BenchError.awaiting("POST /v1/token") {
            try await transport.postForm(metadata.tokenEndpoint, [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", request.redirectURI),
                ("client_id", clientId), ("code_verifier", request.pkce.verifier),
            ])
        }
        guard answer.status == 200 else { throw .stepFailed("POST /v1/token", reason: "HTTP \(answer.status)") }
        let idToken = try BenchError.during("reading the token response") {
            try JSONDecoder().decode(TokenAnswer.self, from: Data(answer.body)).id_token
        }
        guard let idToken else { throw .stepFailed("POST /v1/token", reason: "the answer has no id_token") }
        let exchanged = clock.now
        let claims = try await BenchError.awaiting("checking the ID token") { try await validator.validate(idToken, nonce: request.nonce) }
        guard claims.subject == LoginBrowser.user else {
            throw .stepFailed("checking the ID token", reason: "its subject is not \(LoginBrowser.user)")
        }
        let end = clock.now
        return Steps(listener: (listening - start).nanoseconds, browser: browsed, token: (exchanged - browsedAt).nanoseconds,
                     idToken: (end - exchanged).nanoseconds)
    }
}
