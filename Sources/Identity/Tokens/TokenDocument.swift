import URLPolicy
/// What `token put` stores: an OAuth 2.0 token response (`access_token`,
/// `token_type`, `expires_in`, `refresh_token`, `id_token`, `scope`) plus
/// the three members the agent needs to refresh it later: `issuer`,
/// `client_id` and `token_endpoint`.
public enum TokenDocument {
    /// Checks the document and makes the token set to store, with its
    /// expiry counted from `now`. Errors name the member and why.
    public static func tokenSet(from json: [UInt8], now: Int64) throws(TokenError) -> TokenSet {
        let body: TokenResponse.Body
        switch TokenResponse.Body.decode(json) {
        case .success(let decoded): body = decoded
        case .failure(let problem): throw .invalidInput(problem.text)
        }
        let response = try TokenResponse.parse(body) { .invalidInput($0) }
        guard let issuer = body.issuer, !issuer.isEmpty else { throw .invalidInput("`issuer` is missing (the OpenID issuer URL)") }
        if let problem = Endpoint.problem(issuer) {
            throw .invalidInput("`issuer` must be an https:// URL (http:// only on loopback), not \"\(Endpoint.shown(issuer))\": \(problem)")
        }
        guard let clientId = body.client_id, !clientId.isEmpty else { throw .invalidInput("`client_id` is missing") }
        guard let endpoint = body.token_endpoint, !endpoint.isEmpty else {
            throw .invalidInput("`token_endpoint` is missing (where refresh requests go)")
        }
        if let problem = Endpoint.problem(endpoint) {
            throw .invalidInput("`token_endpoint` must be an https:// URL (http:// only on loopback), not \"\(Endpoint.shown(endpoint))\": \(problem)")
        }
        return TokenSet(accessToken: response.accessToken, tokenType: response.tokenType,
                        refreshToken: response.refreshToken, idToken: response.idToken, scope: response.scope,
                        expiresAt: response.expiry(now: now), issuer: issuer, clientId: clientId,
                        tokenEndpoint: endpoint, updatedAt: OutsideSeconds.instant(now))
    }
}
