import DevServerBase
import FoundationEssentials
import Hummingbird

/// GET and POST {issuer}/v1/authorize: the authorization endpoint (RFC 6749
/// §4.1, PKCE S256 required, RFC 9207 `iss` in every response).
extension OAuthServer {
    /// Renders the sign-in page for a valid request; refuses anything else.
    func authorizePage(_ request: Request) async -> Response {
        let parsed: ValidatedAuthorizationRequest
        do { parsed = try ValidatedAuthorizationRequest.parse(request.queryFields, clients: clients) } catch {
            return refusal(error)
        }
        if let idp = parsed.idp { return await routeToIdP(idp, parsed) }
        let action = issuer + "/v1/authorize?" + (request.uri.query ?? "")
        let body = "<p>Client <b>\(HTMLPage.escape(parsed.client.clientId))</b> asks for "
            + "<b>\(HTMLPage.escape(parsed.scopes.joined(separator: " ")))</b>.</p>"
            + HTMLPage.signInForms(action: action, loginHint: parsed.loginHint)
        return OAuthResponse.html(HTMLPage.document(title: "Sign in", body))
    }

    /// The form post: `action=allow` with `user` or `verify_token` answers with
    /// a code; `action=deny` with `access_denied`.
    func authorizeDecision(_ request: Request) async -> Response {
        let parsed: ValidatedAuthorizationRequest
        do { parsed = try ValidatedAuthorizationRequest.parse(request.queryFields, clients: clients) } catch {
            return refusal(error)
        }
        let fields: FormFields
        do { fields = try await request.formFields() } catch {
            return OAuthResponse.html(HTMLPage.error("Bad form", error.description), status: .badRequest)
        }
        switch fields["action"] {
        case "deny":
            return authorizationError(parsed.redirectURI, "access_denied", "The user denied the request.", state: parsed.state)
        case "allow":
            break
        default:
            return OAuthResponse.html(HTMLPage.error("Bad form", "action must be allow or deny."), status: .badRequest)
        }
        let sub: String
        do { sub = try await signedInUser(fields) } catch {
            return OAuthResponse.html(HTMLPage.error("Sign-in refused", error.reason), status: .badRequest)
        }
        let authorization = Authorization(clientId: parsed.client.clientId, sub: sub, scopes: parsed.scopes,
                                          authTime: now, nonce: parsed.nonce)
        let record = CodeRecord(authorization: authorization, redirectURI: parsed.redirectURI,
                                codeChallenge: parsed.codeChallenge, expiresAt: now.addingTimeInterval(CodeRecord.lifetime))
        let code: String
        do { code = try await store.issueCode(record, now: now) } catch {
            return authorizationError(parsed.redirectURI, "temporarily_unavailable", OAuthError.busy.description, state: parsed.state)
        }
        return OAuthResponse.redirect(to: parsed.redirectURI, [("code", code), ("state", parsed.state), ("iss", issuer)])
    }

    private func refusal(_ refusal: ValidatedAuthorizationRequest.Refusal) -> Response {
        switch refusal {
        case .page(let detail):
            return OAuthResponse.html(HTMLPage.error("Invalid authorization request", detail), status: .badRequest)
        case .redirect(let uri, let error, let description, let state):
            return authorizationError(uri, error, description, state: state)
        }
    }

    /// RFC 6749 §4.1.2.1 with RFC 9207's `iss`.
    func authorizationError(_ uri: String, _ error: String, _ description: String, state: String?) -> Response {
        var items = [("error", error), ("error_description", description)]
        if let state { items.append(("state", state)) }
        items.append(("iss", issuer))
        return OAuthResponse.redirect(to: uri, items)
    }
}
