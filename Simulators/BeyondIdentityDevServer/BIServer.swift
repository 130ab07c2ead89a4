import DevServerBase
import FoundationEssentials

/// The Beyond-Identity-like IdP's shared parts: its one tenant, realm and
/// application, its signing key, state and settings. Each endpoint is an
/// extension in its own file. Public facts in docs/reference/okta-bi.md
/// §1–§2; the proof protocol (a WebAuthn assertion over the request's nonce)
/// is this server's own, since Beyond Identity's is closed.
package struct BIServer: Sendable {
    static let tenantId = "t1"
    static let realmId = "r1"
    static let applicationId = "a1"
    static let applicationName = "Beyond Identity Dev"
    /// The OIDC client the Okta-like server uses (confidential).
    package static let clientId = "bi-okta"
    package static let clientSecret = "bi-okta-secret"

    static let basePath = "/bi"
    static let realmPath = basePath + "/v1/tenants/\(tenantId)/realms/\(realmId)"
    static let applicationPath = realmPath + "/applications/\(applicationId)"

    let issuerBox: IssuerBox
    package let signer: BISigner
    let store: BIStore
    /// Where "now" comes from: the devserver's clock, which tests move.
    let clock: DevServerClock
    /// The devserver's listen address: a request JWT names it as the browser's `origin.ip`.
    let host: String
    let configuration: BIConfiguration

    package init(issuerBox: IssuerBox, signer: BISigner, store: BIStore, clock: DevServerClock, host: String,
                 configuration: BIConfiguration) {
        self.issuerBox = issuerBox
        self.signer = signer
        self.store = store
        self.clock = clock
        self.host = host
        self.configuration = configuration
    }

    var now: Date { clock.now() }
    /// `http://127.0.0.1:PORT/bi`, the API base URL (`authn.base_url`).
    var baseURL: String { issuerBox.origin + Self.basePath }
    var realmURL: String { issuerBox.origin + Self.realmPath }
    /// The application URL, which is also the issuer of its ID tokens.
    package var issuer: String { issuerBox.origin + Self.applicationPath }
    var jwksURL: String { issuer + "/.well-known/jwks.json" }
    /// The path of the one redirect URI registered for `bi-okta`: where the
    /// Okta-like server takes the IdP's answers (its `idpCallbackPath`).
    package static let oktaCallbackPath = "/oauth2/v1/authorize/callback"
    /// The one redirect URI registered for `bi-okta`: the Okta-like server's callback.
    package var oktaCallback: String { issuerBox.origin + Self.oktaCallbackPath }

    /// `<invoke url>/<route>` without a doubled slash.
    func invokeURL(_ route: String) -> String {
        let base = configuration.invokeURL.hasSuffix("/") ? String(configuration.invokeURL.dropLast()) : configuration.invokeURL
        return base + "/" + route
    }
}
