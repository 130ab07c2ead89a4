import Base64
import DevServerBase
import FoundationEssentials
import Hummingbird
import URLPolicy
import WebAuthn

/// GET APP/authorize: the OIDC authorization endpoint. A good request starts
/// a transaction and answers with the invoke URL carrying the signed request
/// JWT: a 302 (automatic invocation) or `{"authenticate_url"}` (manual).
extension BIServer {
    static let maxStateLength = 2048
    static let maxNonceLength = 512
    /// Request headers echoed in the JWT's `origin` are cut to this many characters.
    static let maxEchoedHeader = 512
    /// More realm passkeys than this are not listed: the request is then discoverable ([]).
    static let maxAllowCredentials = 64

    func authorize(_ request: Request) async -> Response {
        let fields: FormFields
        do { fields = try request.queryFields() } catch {
            return BIError.invalidRequest(OAuthError.from(error).description).response
        }
        // Client and redirect URI first: nothing is redirected to an unchecked URI.
        guard fields["client_id"] == Self.clientId else {
            return BIError.invalidRequest("Unknown client_id; this application's OIDC client is \(Self.clientId).").response
        }
        guard let redirectURI = fields["redirect_uri"], redirectURI == oktaCallback else {
            return BIError.invalidRequest("redirect_uri must be the one registered for \(Self.clientId): \(oktaCallback).").response
        }
        let state = fields["state"].flatMap { $0.utf8.count <= Self.maxStateLength ? $0 : nil }
        func refuse(_ error: String, _ description: String) -> Response {
            var items = [("error", error), ("error_description", description)]
            if let state { items.append(("state", state)) }
            return OAuthResponse.redirect(to: redirectURI, items)
        }
        guard fields["response_type"] == "code" else { return refuse("unsupported_response_type", "Only response_type=code is supported.") }
        guard let state else { return refuse("invalid_request", "state is required, at most \(Self.maxStateLength) bytes.") }
        guard let scope = fields["scope"], scope.split(separator: " ").contains("openid"),
              scope.split(separator: " ").allSatisfy({ $0 == "openid" }) else {
            return refuse("invalid_scope", "scope must be openid.")
        }
        let nonce = fields["nonce"]
        if let nonce, nonce.utf8.count > Self.maxNonceLength {
            return refuse("invalid_request", "nonce is longer than \(Self.maxNonceLength) bytes.")
        }
        let codeChallenge = fields["code_challenge"]
        if let codeChallenge {
            guard fields["code_challenge_method"] == "S256", PKCEVerification.isValidChallenge(codeChallenge) else {
                return refuse("invalid_request", "PKCE is optional here, but when sent it is S256 with a 43-character challenge.")
            }
        }

        let now = self.now
        let challenge = AppKeys.randomBytes(32)
        let allow = await store.passkeyIds(limit: Self.maxAllowCredentials) ?? []
        let expiresAt = now.addingTimeInterval(configuration.transactionLifetime.timeInterval)
        let jti = UUID().uuidString.lowercased()
        let transactionId: String
        do {
            transactionId = try await store.addTransaction(BITransaction(
                jti: jti, challenge: challenge, allowCredentials: allow, redirectURI: redirectURI, state: state,
                clientNonce: nonce, codeChallenge: codeChallenge, expiresAt: expiresAt), now: now)
        } catch { return refuse("temporarily_unavailable", BIError.busy.description) }

        let issuedAt = now.numericDate
        let claims = BIRequestClaims(
            iss: issuer, sub: transactionId, aud: [], iat: issuedAt, nbf: issuedAt.subtractingSaturating(60),
            exp: expiresAt.numericDate, jti: jti, cid: UUID().uuidString.lowercased(), verb: "authenticate",
            app: .init(id: Self.applicationId, display_name: Self.applicationName),
            authn: .init(base_url: baseURL, tid: Self.tenantId, rid: Self.realmId, aid: Self.applicationId,
                         action: .init(prove: .init(transaction_id: transactionId, nonce: Base64URL.encode(challenge),
                                                    bi_req: BIRequestClaims.biRequest, rp_id: configuration.rpId,
                                                    origin: configuration.origin, allow_credentials: allow.map(Base64URL.encode))),
                         redirect_uri: redirectURI, state: state),
            origin: .init(ip: host, ua: Self.echoed(request.headers[.userAgent]), geo: "",
                          ref: Self.echoed(request.headers[.referer])),
            indirect_uri: realmURL + "/transactions/\(transactionId)/indirect")
        let jwt: String
        do { jwt = try await signer.sign(claims, jku: jwksURL) } catch {
            return refuse("server_error", "The request could not be signed.")
        }
        let authenticateURL = invokeURL("bi-authenticate") + "?" + PercentEncoding.query([("request", jwt)])
        switch configuration.invocation {
        case .automatic:
            var headers = HTTPFields()
            headers[.location] = authenticateURL
            headers[.cacheControl] = "no-store"
            return Response(status: .found, headers: headers)
        case .manual:
            return OAuthResponse.json(["authenticate_url": authenticateURL])
        }
    }

    /// A header as the JWT repeats it: at most `maxEchoedHeader` characters, "" when absent.
    static func echoed(_ value: String?) -> String {
        String((value ?? "").prefix(maxEchoedHeader))
    }
}

extension Int64 {
    func subtractingSaturating(_ other: Int64) -> Int64 {
        let (result, overflow) = subtractingReportingOverflow(other)
        return overflow ? Int64.min : result
    }
}
