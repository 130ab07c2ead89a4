import FoundationEssentials
import Locking

/// The authorization server's shared parts: issuer, clients, keys, state and
/// settings. Each endpoint is an extension in its own file.
struct OAuthServer: Sendable {
    static let issuerPath = "/oauth2/default"
    static let supportedScopes = ["openid", "profile", "email", "offline_access"]

    let issuerBox: IssuerBox
    let clients: OAuthClients
    let signer: TokenSigner
    let store: OAuthStore
    /// The passwordless side: verify tokens, users' aliases.
    let api: DevServerAPI
    let configuration: OAuthConfiguration
    /// The external IdP `idp=0oa-bi-dev` routes to, and the logins waiting for it.
    let externalIdP: BIServer
    let idpLogins = IdPLogins()

    var now: Date { api.now }
    /// `http://127.0.0.1:PORT/oauth2/default`, known once the port is bound.
    var issuer: String { issuerBox.origin + Self.issuerPath }
    var origin: String { issuerBox.origin }
    var accessTokenLifetime: TimeInterval { configuration.accessTokenLifetime.timeInterval }

    /// Scopes from a space-delimited `scope` (RFC 6749 §3.3), in the server's
    /// order, duplicates merged; nil when one is not offered here.
    static func parseScopes(_ text: String) -> [String]? {
        let requested = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard !requested.isEmpty, requested.count <= 16, requested.allSatisfy(supportedScopes.contains) else { return nil }
        return supportedScopes.filter(requested.contains)
    }
}

/// The server's origin, set once the listening port is known (before the
/// start-up line announces it).
final class IssuerBox: Sendable {
    private let value = Locked("")

    var origin: String { value.withLock { $0 } }

    func set(origin: String) { value.withLock { $0 = origin } }
}
