import FoundationEssentials

/// The Beyond-Identity-like IdP's shared parts: its one tenant, realm and
/// application, its signing key, state and settings. Each endpoint is an
/// extension in its own file. Public facts in docs/reference/okta-bi.md
/// §1–§2; the proof protocol (a WebAuthn assertion over the request's nonce)
/// is this server's own, since Beyond Identity's is closed.
struct BIServer: Sendable {
    static let tenantId = "t1"
    static let realmId = "r1"
    static let applicationId = "a1"
    static let applicationName = "Beyond Identity Dev"
    /// The OIDC client the Okta-like server uses (confidential).
    static let clientId = "bi-okta"
    static let clientSecret = "bi-okta-secret"

    static let basePath = "/bi"
    static let realmPath = basePath + "/v1/tenants/\(tenantId)/realms/\(realmId)"
    static let applicationPath = realmPath + "/applications/\(applicationId)"

    let issuerBox: IssuerBox
    let signer: BISigner
    let store: BIStore
    /// The passwordless side: the clock and the API secret for admin calls.
    let api: DevServerAPI
    let configuration: BIConfiguration

    var now: Date { api.now }
    /// `http://127.0.0.1:PORT/bi`, the API base URL (`authn.base_url`).
    var baseURL: String { issuerBox.origin + Self.basePath }
    var realmURL: String { issuerBox.origin + Self.realmPath }
    /// The application URL, which is also the issuer of its ID tokens.
    var issuer: String { issuerBox.origin + Self.applicationPath }
    var jwksURL: String { issuer + "/.well-known/jwks.json" }
    /// The one redirect URI registered for `bi-okta`: the Okta-like server's callback.
    var oktaCallback: String { issuerBox.origin + OAuthServer.idpCallbackPath }

    /// `<invoke url>/<route>` without a doubled slash.
    func invokeURL(_ route: String) -> String {
        let base = configuration.invokeURL.hasSuffix("/") ? String(configuration.invokeURL.dropLast()) : configuration.invokeURL
        return base + "/" + route
    }
}
