import URLPolicy
/// A token endpoint's answer to a grant other than refresh (an authorization
/// code, a device code), read by the same `TokenResponse` parser as refresh
/// answers and `token put` documents: a login lands with exactly the checks a
/// pasted token response gets.
public enum TokenEndpointAnswer {
    /// The token set of a successful answer (`body` of a 2xx): `issuer`,
    /// `clientId` and `tokenEndpoint` are the caller's (from discovery, not
    /// from the answer), the expiry counts from `now`. Errors are
    /// `.malformedResponse` naming `url` and the member at fault.
    public static func tokenSet(from body: [UInt8], url: String, issuer: String, clientId: String,
                                tokenEndpoint: String, now: Int64) throws(TokenError) -> TokenSet {
        let shownURL = Endpoint.shown(url)
        let decoded: TokenResponse.Body
        switch TokenResponse.Body.decode(body) {
        case .success(let value): decoded = value
        case .failure(let problem): throw .malformedResponse(url: shownURL, reason: problem.text)
        }
        let response = try TokenResponse.parse(decoded) { .malformedResponse(url: shownURL, reason: $0) }
        return TokenSet(accessToken: response.accessToken, tokenType: response.tokenType,
                        refreshToken: response.refreshToken, idToken: response.idToken, scope: response.scope,
                        expiresAt: response.expiry(now: now), issuer: issuer, clientId: clientId,
                        tokenEndpoint: tokenEndpoint, updatedAt: OutsideSeconds.instant(now))
    }

    /// An error answer's OAuth `error` code and `error_description` (RFC 6749
    /// §5.2), each one line of at most 200 characters; nil when absent or
    /// when the body is not a JSON object.
    public static func error(in body: [UInt8]) -> (code: String?, description: String?) {
        guard case .success(let decoded) = TokenResponse.Body.decode(body) else { return (nil, nil) }
        return (TokenError.sanitised(decoded.error), TokenError.sanitised(decoded.error_description))
    }
}
