import HTTPTransport
import Tokens
import URLPolicy

/// What a token-type hint says (RFC 7009 §2.1).
public enum TokenTypeHint: String, Sendable {
    case refreshToken = "refresh_token", accessToken = "access_token"
}

/// One public client of one provider at its token, device authorization
/// and revocation endpoints: form-encoded POSTs through `HTTPTransport`
/// (connect 5 s, whole request 15 s), answers read by Tokens' token
/// response parser (`TokenEndpointAnswer`).
public struct OpenIDClient: Sendable {
    private let transport: HTTPTransport
    private let metadata: ProviderMetadata
    private let clientId: String
    /// A confidential client's secret, sent as `client_secret` with every
    /// request (client_secret_post, RFC 6749 §2.3.1); nil for a public client.
    private let clientSecret: String?
    private let now: @Sendable () -> Int64

    static let deviceGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    public init(transport: HTTPTransport, metadata: ProviderMetadata, clientId: String, clientSecret: String? = nil,
                now: @escaping @Sendable () -> Int64 = TokenSet.now) {
        self.transport = transport
        self.metadata = metadata
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.now = now
    }

    /// The authorization code grant with the PKCE verifier and the same
    /// `redirect_uri` (RFC 6749 §4.1.3, RFC 7636 §4.5). The token set's
    /// issuer, token endpoint and client id are ours, not the answer's. The
    /// ID token is NOT validated here: the caller runs `IDTokenValidator`.
    public func exchange(code: String, request: AuthorizationRequest) async throws(OpenIDError) -> TokenSet {
        let answer = try await post(metadata.tokenEndpoint, [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", request.redirectURI),
            ("client_id", clientId), ("code_verifier", request.pkce.verifier),
        ])
        return try tokenSet(from: answer)
    }

    /// Okta Identity Engine's `interaction_code` grant (okta-bi.md §3.1):
    /// the code IDX issued at the end of its remediations, with the PKCE
    /// verifier whose challenge went to `/v1/interact`. Same endpoint, same
    /// answer parser as `exchange(code:request:)`; the ID token is NOT
    /// validated here.
    public func exchange(interactionCode: String, pkce: PKCE) async throws(OpenIDError) -> TokenSet {
        let answer = try await post(metadata.tokenEndpoint, [
            ("grant_type", "interaction_code"), ("interaction_code", interactionCode),
            ("client_id", clientId), ("code_verifier", pkce.verifier),
        ])
        return try tokenSet(from: answer)
    }

    /// RFC 8628 §3.1: asks for a user code for `scopes` (`openid` first when left out).
    public func startDeviceAuthorization(scopes: [String]) async throws(OpenIDError) -> DeviceAuthorization {
        guard let url = metadata.deviceAuthorizationEndpoint else { throw .noDeviceEndpoint }
        var scope = scopes.filter { !$0.isEmpty }
        if !scope.contains("openid") { scope.insert("openid", at: 0) }
        let issued = now()
        let answer = try await post(url, [("client_id", clientId), ("scope", scope.joined(separator: " "))])
        guard (200..<300).contains(answer.status) else {
            let error = TokenEndpointAnswer.error(in: answer.body)
            throw .deviceAuthorizationFailed(status: answer.status, errorCode: error.code, description: error.description)
        }
        return try DeviceAuthorization(answer: answer.body, url: Endpoint.shown(url), now: issued)
    }

    /// RFC 8628 §3.4-3.5: waits `interval`, polls, and again until the user
    /// has decided. `authorization_pending` polls again; `slow_down` adds 5 s
    /// to this and every later wait; a timed-out poll doubles the wait
    /// (§3.5); `expired_token`, `access_denied` and an expiry that passed end
    /// it. `sleep` is the wait (a test's seam); its throwing — a cancelled
    /// task — ends the polling with `.cancelled`.
    public func pollDeviceToken(_ authorization: DeviceAuthorization,
                                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) })
        async throws(OpenIDError) -> TokenSet {
        if let problem = Endpoint.problem(metadata.tokenEndpoint) {
            throw .malformedResponse(url: Endpoint.shown(metadata.tokenEndpoint), reason: "the endpoint cannot be used: \(problem)")
        }
        var authorization = authorization
        while true {
            let remaining = authorization.expiresAt.subtractingReportingOverflow(now())
            guard !remaining.overflow, remaining.partialValue > 0 else { throw .deviceCodeExpired }
            do {
                try await sleep(.seconds(min(authorization.interval, remaining.partialValue)))
            } catch {
                throw .cancelled
            }
            if Task.isCancelled { throw .cancelled }
            guard now() < authorization.expiresAt else { throw .deviceCodeExpired }
            let answer: HTTPTransport.Response
            do {
                answer = try await transport.postForm(metadata.tokenEndpoint, authenticated([
                    ("grant_type", Self.deviceGrantType), ("device_code", authorization.deviceCode), ("client_id", clientId),
                ]))
            } catch .connectTimeout, .requestTimeout {
                authorization.interval = min(authorization.interval.multipliedReportingOverflow(by: 2).partialValue,
                                             DeviceAuthorization.longestInterval)
                continue
            } catch {
                throw .network(error)
            }
            if (200..<300).contains(answer.status) { return try tokenSet(from: answer) }
            switch TokenEndpointAnswer.error(in: answer.body).code {
            case "authorization_pending":
                continue
            case "slow_down":
                authorization.interval = min(authorization.interval + 5, DeviceAuthorization.longestInterval)
            case "expired_token":
                throw .deviceCodeExpired
            case "access_denied":
                throw .deviceAccessDenied
            default:
                throw Self.tokenEndpointError(answer)
            }
        }
    }

    /// RFC 7009: asks the provider to revoke `token` (200 also for a token it
    /// does not know, §2.2).
    public func revoke(_ token: String, hint: TokenTypeHint) async throws(OpenIDError) {
        guard let url = metadata.revocationEndpoint else { throw .noRevocationEndpoint }
        let answer = try await post(url, [("token", token), ("token_type_hint", hint.rawValue), ("client_id", clientId)])
        guard answer.status == 200 else {
            let error = TokenEndpointAnswer.error(in: answer.body)
            throw .revocationFailed(status: answer.status, errorCode: error.code, description: error.description)
        }
    }

    private func post(_ url: String, _ fields: [(String, String)]) async throws(OpenIDError) -> HTTPTransport.Response {
        // Checked again here: metadata may have been built by hand.
        if let problem = Endpoint.problem(url) {
            throw .malformedResponse(url: Endpoint.shown(url), reason: "the endpoint cannot be used: \(problem)")
        }
        do {
            return try await transport.postForm(url, authenticated(fields))
        } catch {
            throw .network(error)
        }
    }

    /// `fields`, plus `client_secret` for a confidential client.
    private func authenticated(_ fields: [(String, String)]) -> [(String, String)] {
        fields + (clientSecret.map { [("client_secret", $0)] } ?? [])
    }

    private func tokenSet(from answer: HTTPTransport.Response) throws(OpenIDError) -> TokenSet {
        guard (200..<300).contains(answer.status) else { throw Self.tokenEndpointError(answer) }
        do {
            return try TokenEndpointAnswer.tokenSet(from: answer.body, url: metadata.tokenEndpoint, issuer: metadata.issuer,
                                                    clientId: clientId, tokenEndpoint: metadata.tokenEndpoint, now: now())
        } catch .malformedResponse(let url, let reason) {
            throw .malformedResponse(url: url, reason: reason)
        } catch {
            throw .malformedResponse(url: Endpoint.shown(metadata.tokenEndpoint), reason: error.description)
        }
    }

    private static func tokenEndpointError(_ answer: HTTPTransport.Response) -> OpenIDError {
        let error = TokenEndpointAnswer.error(in: answer.body)
        if error.code == "invalid_grant" { return .invalidGrant(description: error.description) }
        return .tokenEndpoint(status: answer.status, errorCode: error.code, description: error.description)
    }
}
