import FoundationEssentials
import HTTPTransport
import Tokens
import URLPolicy
import WebAuthnJSON

/// The calls to a Beyond-Identity-like identity provider after an invoke
/// URL: the proof of an authentication (a WebAuthn assertion over the
/// request's nonce — our protocol, since Beyond Identity's own is closed) and
/// the binding of a new passkey. Every URL is built from checked parts (the
/// `Endpoint` rule for roots, single safe path segments for ids); nothing
/// follows a redirect by itself (HTTPTransport never does).
public struct BIClient: Sendable {
    /// Answers larger than this are not the small JSON documents expected.
    public static let answerLimit = 64 << 10

    private let transport: HTTPTransport

    public init(transport: HTTPTransport) {
        self.transport = transport
    }

    /// `POST <base>/v1/tenants/<t>/realms/<r>/transactions/<id>/prove` with the
    /// assertion; the answer's `redirect_url` must be the request's
    /// `redirect_uri` with a query carrying its `state` (else `.redirectMismatch`).
    public func prove(_ request: AuthenticateRequest, credential: AuthenticationResponseJSON) async throws(InvokeError) -> String {
        let url = try Self.url(request.baseURL, ["v1", "tenants", request.tenantId, "realms", request.realmId,
                                                 "transactions", request.transactionId, "prove"])
        let answer: ProveAnswer = try await post(url, ProveBody(jti: request.jti, credential: credential))
        try Self.checkRedirect(answer.redirect_url, to: request.redirectURI, state: request.state)
        return answer.redirect_url
    }

    /// GETs a binding link without following it: its `Location` must be a bind URL.
    public func resolveBindingLink(_ url: String) async throws(InvokeError) -> BindParameters {
        guard case .bindingLink = InvokeURL(url), Endpoint.problem(url) == nil else { throw .invalidURL }
        let response: HTTPTransport.Response
        do {
            response = try await transport.send("GET", url, headers: [("Accept", "application/json")])
        } catch {
            throw .network(error)
        }
        guard (300..<400).contains(response.status) else {
            throw Self.error(response, otherwise: .bindingFailed("the binding link did not redirect (HTTP \(response.status))"))
        }
        guard let location = response.header("Location"), case .bind(let bind) = InvokeURL(location) else {
            throw .bindingFailed("the binding link redirected to something that is not a bind URL")
        }
        return bind
    }

    /// `POST …/identities/<id>/credential-binding-jobs/<job>:begin {"token"}`:
    /// the creation options and the WebAuthn origin to make the passkey for.
    public func beginBinding(_ bind: BindParameters) async throws(InvokeError)
        -> (options: PublicKeyCredentialCreationOptionsJSON, origin: String) {
        let answer: BeginAnswer = try await post(try Self.jobURL(bind, action: "begin"), TokenBody(token: bind.token))
        guard let rpId = answer.options.rp.id else { throw .bindingFailed("the creation options name no RP ID") }
        do {
            try RequestClaims.checkWebAuthnOrigin(answer.origin, rpId: rpId)
        } catch {
            throw .bindingFailed("the identity provider's origin and RP ID do not fit together")
        }
        return (answer.options, answer.origin)
    }

    /// `POST …/credential-binding-jobs/<job>:complete {"token","credential"}`: the bound passkey.
    public func completeBinding(_ bind: BindParameters, credential: RegistrationResponseJSON) async throws(InvokeError) -> BoundPasskey {
        let answer: CompleteAnswer = try await post(try Self.jobURL(bind, action: "complete"),
                                                    CompleteBody(token: bind.token, credential: credential))
        guard !answer.passkey.id.isEmpty, answer.passkey.identity.id == bind.identityId else {
            throw .bindingFailed("the identity provider bound the passkey to another identity")
        }
        if let redirect = answer.post_binding_redirect_uri, redirect.utf8.count > 4096 || URLComponents(string: redirect)?.scheme == nil {
            throw .bindingFailed("its post-binding redirect is not a URL")
        }
        return BoundPasskey(passkeyId: TokenError.sanitised(answer.passkey.id) ?? "", identityId: answer.passkey.identity.id,
                            username: TokenError.sanitised(answer.passkey.identity.username),
                            displayName: TokenError.sanitised(answer.passkey.identity.display_name),
                            postBindingRedirectURI: answer.post_binding_redirect_uri)
    }

    // MARK: URLs

    /// `root` (the `Endpoint` rule, a trailing `/` dropped) + `/`-joined segments, each a safe id.
    static func url(_ root: String, _ segments: [String]) throws(InvokeError) -> String {
        guard Endpoint.problem(root) == nil, let parts = URLComponents(string: root),
              parts.percentEncodedQuery == nil, parts.percentEncodedFragment == nil else { throw .invalidURL }
        for segment in segments where !PathSegment.isSafe(segment) { throw .invalidURL }
        let base = root.hasSuffix("/") ? String(root.dropLast()) : root
        return base + "/" + segments.joined(separator: "/")
    }

    private static func jobURL(_ bind: BindParameters, action: String) throws(InvokeError) -> String {
        guard PathSegment.isSafe(bind.jobId) else { throw .invalidURL }
        // `<job>:<action>` (a custom method, Google API style): the job id is
        // the checked segment; the action is ours.
        return try url(bind.apiBaseURL, ["v1", "tenants", bind.tenantId, "realms", bind.realmId, "identities", bind.identityId,
                                         "credential-binding-jobs", bind.jobId]) + ":" + action
    }

    /// The redirect goes to `redirectURI` itself: the same text, then the
    /// query (`?`, or `&` when `redirectURI` has one) — so a redirect URI
    /// that is a prefix of another host or path does not match — and its
    /// `state` is the request's.
    static func checkRedirect(_ redirect: String, to redirectURI: String, state: String) throws(InvokeError) {
        guard redirect.utf8.count <= InvokeURL.limit, Endpoint.problem(redirect) == nil, redirect.hasPrefix(redirectURI) else {
            throw .redirectMismatch
        }
        let rest = redirect.dropFirst(redirectURI.count)
        guard rest.first == "?" || (redirectURI.contains("?") && rest.first == "&"),
              let parts = URLComponents(string: redirect), let fields = InvokeURL.fields(parts), fields["state"] == state else {
            throw .redirectMismatch
        }
    }

    // MARK: Exchanges

    private func post<Body: Encodable, Answer: Decodable>(_ url: String, _ body: Body) async throws(InvokeError) -> Answer {
        let bytes: [UInt8]
        do {
            bytes = try Array(JSONEncoder().encode(body))
        } catch {
            throw .malformedRequest("it cannot be encoded")
        }
        let response: HTTPTransport.Response
        do {
            response = try await transport.send("POST", url, headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
                                                body: bytes)
        } catch {
            throw .network(error)
        }
        guard response.status == 200 else { throw Self.error(response, otherwise: nil) }
        guard response.body.count <= Self.answerLimit, let answer = try? JSONDecoder().decode(Answer.self, from: Data(response.body)) else {
            throw .server(status: response.status, code: nil, description: "its answer is not the JSON expected")
        }
        return answer
    }

    /// An error answer `{"error", "error_description"}` as the case a user knows.
    static func error(_ response: HTTPTransport.Response, otherwise: InvokeError?) -> InvokeError {
        let problem = response.body.count <= answerLimit ? try? JSONDecoder().decode(ErrorAnswer.self, from: Data(response.body)) : nil
        switch problem?.error {
        case "credential_not_found": return .credentialNotFound
        case "policy_denied": return .policyDenied(TokenError.sanitised(problem?.error_description))
        case "transaction_used": return .transactionUsed
        case "transaction_expired": return .transactionExpired
        case nil:
            return otherwise ?? .server(status: response.status, code: nil, description: nil)
        case let code?:
            return .server(status: response.status, code: TokenError.sanitised(code).map { String($0.prefix(64)) },
                           description: TokenError.sanitised(problem?.error_description))
        }
    }

    private struct ProveBody: Encodable {
        var jti: String
        var credential: AuthenticationResponseJSON
    }

    private struct ProveAnswer: Decodable {
        var redirect_url: String
    }

    private struct TokenBody: Encodable {
        var token: String
    }

    private struct CompleteBody: Encodable {
        var token: String
        var credential: RegistrationResponseJSON
    }

    private struct BeginAnswer: Decodable {
        var options: PublicKeyCredentialCreationOptionsJSON
        var origin: String
    }

    private struct CompleteAnswer: Decodable {
        struct Passkey: Decodable {
            var id: String
            var identity: Identity
        }

        struct Identity: Decodable {
            var id: String
            var display_name: String?
            var username: String?
        }

        var passkey: Passkey
        var post_binding_redirect_uri: String?
    }

    private struct ErrorAnswer: Decodable {
        var error: String
        var error_description: String?
    }
}

/// A passkey the identity provider bound: its id (the base64url credential
/// id) and whose it is.
public struct BoundPasskey: Sendable, Codable, Equatable {
    public var passkeyId: String
    public var identityId: String
    public var username: String?
    public var displayName: String?
    public var postBindingRedirectURI: String?

    public init(passkeyId: String, identityId: String, username: String? = nil, displayName: String? = nil,
                postBindingRedirectURI: String? = nil) {
        self.passkeyId = passkeyId
        self.identityId = identityId
        self.username = username
        self.displayName = displayName
        self.postBindingRedirectURI = postBindingRedirectURI
    }
}
