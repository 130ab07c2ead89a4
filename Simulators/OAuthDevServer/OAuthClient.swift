import DevServerBase
/// A client and its registered redirect URIs: public (RFC 6749 §2.1: no
/// secret, `token_endpoint_auth_method` `none`), or confidential with a
/// secret the server made (`client_secret_basic` or `client_secret_post`) —
/// for OpenID clients that insist on one, such as oidc-agent.
public struct OAuthClientRegistration: Sendable, Equatable {
    public let clientId: String
    public let redirectURIs: [String]
    /// The client's secret; nil for a public client. Never log it.
    public let secret: String?

    /// Checks the client id and each redirect URI; the error names what is wrong.
    public init(clientId: String, redirectURIs: [String], secret: String? = nil) throws(DevServerError) {
        guard OAuthClient.isValidClientId(clientId) else {
            throw .invalidConfiguration("OAuth client id \"\(clientId.prefix(80))\"",
                                        reason: "use 1 to 128 letters, digits, '.', '_' or '-'")
        }
        guard !redirectURIs.isEmpty, redirectURIs.count <= 32 else {
            throw .invalidConfiguration("OAuth client \"\(clientId)\"", reason: "give 1 to 32 redirect URIs")
        }
        for uri in redirectURIs {
            if let reason = RedirectURI.registrationProblem(uri) {
                throw .invalidConfiguration("redirect URI \"\(uri.prefix(200))\" of OAuth client \"\(clientId)\"", reason: reason)
            }
        }
        if let secret, !(16...256).contains(secret.utf8.count) {
            throw .invalidConfiguration("OAuth client \"\(clientId)\"", reason: "a client secret has 16 to 256 bytes")
        }
        self.clientId = clientId
        self.redirectURIs = redirectURIs
        self.secret = secret
    }

    /// `ID=REDIRECT[,REDIRECT…]`, as `--oauth-client` (public) and
    /// `--oauth-confidential-client` take it; a confidential client gets a
    /// new random secret, which the start-up line names (a secret never
    /// comes in on a command line).
    public init(argument: String, confidential: Bool = false) throws(DevServerError) {
        let option = confidential ? "--oauth-confidential-client" : "--oauth-client"
        guard let equals = argument.firstIndex(of: "=") else {
            throw .invalidConfiguration("\(option) \"\(argument.prefix(200))\"", reason: "use ID=REDIRECT[,REDIRECT…]")
        }
        let uris = argument[argument.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        try self.init(clientId: String(argument[..<equals]), redirectURIs: uris, secret: confidential ? OpaqueSecret.make() : nil)
    }
}

/// A client as the endpoints see it.
package struct OAuthClient: Sendable {
    static let cliClientId = "cli"

    package let clientId: String
    let redirectURIs: [RedirectURI]
    /// nil for a public client.
    let secret: String?

    /// The built-in public client of the `passkey` command line: loopback
    /// redirects on any port (RFC 8252 §7.3).
    static let cli = OAuthClient(clientId: cliClientId, redirectURIs: [
        RedirectURI(registered: "http://127.0.0.1/callback")!, RedirectURI(registered: "http://[::1]/callback")!,
    ])

    init(clientId: String, redirectURIs: [RedirectURI], secret: String? = nil) {
        self.clientId = clientId
        self.redirectURIs = redirectURIs
        self.secret = secret
    }

    init(_ registration: OAuthClientRegistration) {
        self.init(clientId: registration.clientId, redirectURIs: registration.redirectURIs.compactMap(RedirectURI.init(registered:)),
                  secret: registration.secret)
    }

    /// Whether the client gets a refresh token without asking for `offline_access`.
    var alwaysGetsRefreshToken: Bool { clientId == Self.cliClientId }

    /// True when `presented` matches one of the registered redirect URIs.
    package func accepts(redirectURI presented: String) -> Bool {
        redirectURIs.contains { $0.matches(presented) }
    }

    static func isValidClientId(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }
}

/// The clients the server knows: `cli` and the configured ones.
package struct OAuthClients: Sendable {
    private let byId: [String: OAuthClient]

    package init(_ registrations: [OAuthClientRegistration]) {
        var byId = [OAuthClient.cliClientId: OAuthClient.cli]
        for registration in registrations { byId[registration.clientId] = OAuthClient(registration) }
        self.byId = byId
    }

    package subscript(clientId: String) -> OAuthClient? { byId[clientId] }

    /// Whether any client has a secret (then discovery lists the secret methods).
    var anyConfidential: Bool { byId.values.contains { $0.secret != nil } }
}
