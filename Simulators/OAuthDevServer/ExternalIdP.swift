import BeyondIdentityDevServer
import DevServerBase
import FoundationEssentials
import Hummingbird
import URLPolicy

/// External IdP routing, as Okta's `idp=` parameter does it: the app's
/// checked authorization request is parked, the browser goes to the
/// Beyond-Identity-like IdP as this server's OIDC relying party (client
/// `bi-okta`, its own state and nonce), and ORIGIN/oauth2/v1/authorize/callback
/// redeems the IdP's code, checks its ID token (signature, iss, aud, nonce,
/// time) and completes the app's authorization with a code of this server's.
extension OAuthServer {
    /// bi-okta's registered redirect URI, on this server's origin.
    static let idpCallbackPath = BIServer.oktaCallbackPath
    /// The one external IdP: the BI application under /bi.
    static let biIdPId = "0oa-bi-dev"
    /// Clock skew allowed on the IdP's `iat`.
    static let idpLeeway: Int64 = 60

    func routeToIdP(_ idp: String, _ request: ValidatedAuthorizationRequest) async -> Response {
        guard idp == Self.biIdPId else {
            return authorizationError(request.redirectURI, "invalid_request", "Unknown idp; this server knows \(Self.biIdPId).",
                                      state: request.state)
        }
        let nonce = OpaqueSecret.make()
        let state: String
        do { state = try await idpLogins.start(request, idpNonce: nonce, now: now) } catch {
            return authorizationError(request.redirectURI, "temporarily_unavailable", OAuthError.busy.description, state: request.state)
        }
        let bi = externalIdP
        return OAuthResponse.redirect(to: bi.issuer + "/authorize", [
            ("response_type", "code"), ("client_id", BIServer.clientId), ("redirect_uri", bi.oktaCallback),
            ("state", state), ("scope", "openid"), ("nonce", nonce),
        ])
    }

    /// GET ORIGIN/oauth2/v1/authorize/callback?code&state (or error&state).
    func idpCallback(_ request: Request) async -> Response {
        let fields: FormFields
        do { fields = try request.queryFields() } catch {
            return OAuthResponse.html(HTMLPage.error("Bad callback", OAuthError.from(error).description), status: .badRequest)
        }
        guard let state = fields["state"], state.utf8.count <= 256, let login = await idpLogins.finish(state: state, now: now) else {
            return OAuthResponse.html(HTMLPage.error("Unknown sign-in",
                                                     "This callback's state names no sign-in in progress (it expired or was used)."),
                                      status: .badRequest)
        }
        let app = login.request
        if let error = fields["error"] {
            // The IdP refused: the app hears it, in its own terms.
            let known = ["access_denied", "invalid_scope", "temporarily_unavailable", "server_error"]
            return authorizationError(app.redirectURI, known.contains(error) ? error : "access_denied",
                                      "The identity provider refused the sign-in.", state: app.state)
        }
        guard let code = fields["code"] else {
            return authorizationError(app.redirectURI, "server_error", "The identity provider answered without a code.", state: app.state)
        }
        let sub: String, authTime: Date
        do { (sub, authTime) = try await redeemAtIdP(code: code, nonce: login.idpNonce) } catch {
            return authorizationError(app.redirectURI, "access_denied", "The identity provider's answer failed a check: \(error.description)",
                                      state: app.state)
        }
        let authorization = Authorization(clientId: app.client.clientId, sub: sub, scopes: app.scopes, authTime: authTime, nonce: app.nonce)
        let record = CodeRecord(authorization: authorization, redirectURI: app.redirectURI, codeChallenge: app.codeChallenge,
                                expiresAt: now.addingTimeInterval(CodeRecord.lifetime))
        let ownCode: String
        do { ownCode = try await store.issueCode(record, now: now) } catch {
            return authorizationError(app.redirectURI, "temporarily_unavailable", OAuthError.busy.description, state: app.state)
        }
        return OAuthResponse.redirect(to: app.redirectURI, [("code", ownCode), ("state", app.state), ("iss", issuer)])
    }

    /// The IdP's token endpoint, called in process as its confidential client,
    /// then its ID token checked as a relying party must (OIDC Core §3.1.3.7).
    private func redeemAtIdP(code: String, nonce: String) async throws(OAuthError) -> (sub: String, authTime: Date) {
        let bi = externalIdP
        let form: FormFields
        do {
            form = try FormFields(parsing: Substring(PercentEncoding.query([
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", bi.oktaCallback), ("client_id", BIServer.clientId),
            ])))
        } catch { throw .invalidRequest("The IdP's code is not usable.") }
        let answer = try await bi.exchange(form, clientSecret: BIServer.clientSecret)
        guard let claims = await bi.signer.verified(answer.id_token, as: BIIDTokenClaims.self) else {
            throw .invalidGrant("the ID token's signature")
        }
        let time = now.numericDate
        guard claims.iss == bi.issuer else { throw .invalidGrant("the ID token's iss") }
        guard claims.aud == BIServer.clientId else { throw .invalidGrant("the ID token's aud") }
        guard claims.nonce == nonce else { throw .invalidGrant("the ID token's nonce") }
        guard claims.exp > time, claims.iat <= time.addingSaturating(Self.idpLeeway) else { throw .invalidGrant("the ID token's exp/iat") }
        guard BIIdentity.isValidUsername(claims.sub) else { throw .invalidGrant("the ID token's sub") }
        return (claims.sub, Date(timeIntervalSince1970: TimeInterval(claims.auth_time)))
    }
}

extension Int64 {
    func addingSaturating(_ other: Int64) -> Int64 {
        let (result, overflow) = addingReportingOverflow(other)
        return overflow ? Int64.max : result
    }
}
