import BeyondIdentityDevServer
import DevServerBase
import FoundationEssentials
import Logging
import PasswordlessDevServer

/// The authorization server's shared parts: issuer, clients, keys, state and
/// settings. Each endpoint is an extension in its own file.
package struct OAuthServer: Sendable {
    package static let issuerPath = "/oauth2/default"
    package static let supportedScopes = ["openid", "profile", "email", "offline_access"]

    package let issuerBox: IssuerBox
    let clients: OAuthClients
    let signer: TokenSigner
    package let store: OAuthStore
    /// The passwordless side: verify tokens, users' aliases.
    let api: DevServerAPI
    let configuration: OAuthConfiguration
    /// The external IdP `idp=0oa-bi-dev` routes to, and the logins waiting for it.
    let externalIdP: BIServer
    let idpLogins = IdPLogins()
    /// Failures the token endpoint cannot answer in detail: their type, never their content.
    let logger: Logger

    package init(issuerBox: IssuerBox, clients: OAuthClients, signer: TokenSigner, store: OAuthStore, api: DevServerAPI,
                 configuration: OAuthConfiguration, externalIdP: BIServer, logger: Logger) {
        self.issuerBox = issuerBox
        self.clients = clients
        self.signer = signer
        self.store = store
        self.api = api
        self.configuration = configuration
        self.externalIdP = externalIdP
        self.logger = logger
    }

    package var now: Date { api.now }
    /// `http://127.0.0.1:PORT/oauth2/default`, known once the port is bound.
    package var issuer: String { issuerBox.origin + Self.issuerPath }
    package var origin: String { issuerBox.origin }
    var accessTokenLifetime: TimeInterval { configuration.accessTokenLifetime.timeInterval }

    /// Scopes from a space-delimited `scope` (RFC 6749 §3.3), in the server's
    /// order, duplicates merged; nil when one is not offered here.
    package static func parseScopes(_ text: String) -> [String]? {
        let requested = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard !requested.isEmpty, requested.count <= 16, requested.allSatisfy(supportedScopes.contains) else { return nil }
        return supportedScopes.filter(requested.contains)
    }
}
