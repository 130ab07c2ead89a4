import HTTPTransport
import URLPolicy

/// The refresh_token grant (RFC 6749 §6): a form-encoded POST of
/// `grant_type=refresh_token`, the refresh token and the client id to the
/// token endpoint, through `HTTPTransport` (connect 5 s, whole request 15 s).
public struct TokenRefresher: Sendable {
    private let transport: HTTPTransport

    public init(transport: HTTPTransport) { self.transport = transport }

    /// A fresh token set for `account`. A refresh token or id token the
    /// server leaves out is kept from `tokens` (RFC 6749 §6; OpenID Connect
    /// Core §12.2); a scope it leaves out is the one asked for (§5.1): `scope`,
    /// else the stored one. With `scope`, the access token asked for is
    /// narrowed to it (RFC 6749 §6: no wider than the grant).
    public func refresh(_ tokens: TokenSet, account: String, scope: String? = nil,
                        now: @Sendable () -> Int64 = TokenSet.now) async throws(TokenError) -> TokenSet {
        guard let refreshToken = tokens.refreshToken else { throw .noRefreshToken(account: account) }
        let url = tokens.tokenEndpoint
        // Entries stored before the check was strict may hold any URL: it is
        // checked again before a refresh token is sent to it.
        if let problem = Endpoint.problem(url) {
            throw .malformedResponse(url: Endpoint.shown(url), reason: "the stored token endpoint cannot be used: \(problem)")
        }
        let response: HTTPTransport.Response
        do {
            response = try await transport.postForm(url, [("grant_type", "refresh_token"),
                                                          ("refresh_token", refreshToken),
                                                          ("client_id", tokens.clientId)]
                                                         + (scope.map { [("scope", $0)] } ?? []),
                                                    headers: ClientSecretBasic.headers(clientId: tokens.clientId,
                                                                                       secret: tokens.clientSecret))
        } catch {
            throw .network(error)
        }
        let shownURL = String(url.prefix { $0 != "?" && $0 != "#" })
        let decoded = TokenResponse.Body.decode(response.body)
        guard (200..<300).contains(response.status) else {
            let body = try? decoded.get()
            if body?.error == "invalid_grant" {
                throw .invalidGrant(account: account, serverDescription: TokenError.sanitised(body?.error_description))
            }
            throw .server(url: shownURL, status: response.status, errorCode: TokenError.sanitised(body?.error),
                          serverDescription: TokenError.sanitised(body?.error_description))
        }
        let body: TokenResponse.Body
        switch decoded {
        case .success(let value): body = value
        case .failure(let problem): throw .malformedResponse(url: shownURL, reason: problem.text)
        }
        let fresh = try TokenResponse.parse(body) { .malformedResponse(url: shownURL, reason: $0) }
        let issued = now()
        var updated = tokens
        updated.accessToken = fresh.accessToken
        updated.tokenType = fresh.tokenType
        updated.expiresAt = fresh.expiry(now: issued)
        updated.refreshToken = fresh.refreshToken ?? tokens.refreshToken
        updated.idToken = fresh.idToken ?? tokens.idToken
        // RFC 6749 §5.1: a scope left out is the one asked for — with `scope`, that one.
        updated.scope = fresh.scope ?? scope ?? tokens.scope
        updated.updatedAt = OutsideSeconds.instant(issued)
        return updated
    }
}
