/// A public client (RFC 6749 §2.1: no secret, `token_endpoint_auth_method`
/// `none`) and its registered redirect URIs.
public struct OAuthClientRegistration: Sendable, Equatable {
    public let clientId: String
    public let redirectURIs: [String]

    /// Checks the client id and each redirect URI; the error names what is wrong.
    public init(clientId: String, redirectURIs: [String]) throws(DevServerError) {
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
        self.clientId = clientId
        self.redirectURIs = redirectURIs
    }

    /// `ID=REDIRECT[,REDIRECT…]`, as `--oauth-client` takes it.
    public init(argument: String) throws(DevServerError) {
        guard let equals = argument.firstIndex(of: "=") else {
            throw .invalidConfiguration("--oauth-client \"\(argument.prefix(200))\"", reason: "use ID=REDIRECT[,REDIRECT…]")
        }
        let uris = argument[argument.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        try self.init(clientId: String(argument[..<equals]), redirectURIs: uris)
    }
}

/// A client as the endpoints see it.
struct OAuthClient: Sendable {
    static let cliClientId = "cli"

    let clientId: String
    let redirectURIs: [RedirectURI]

    /// The built-in public client of the `passkey` command line: loopback
    /// redirects on any port (RFC 8252 §7.3).
    static let cli = OAuthClient(clientId: cliClientId, redirectURIs: [
        RedirectURI(registered: "http://127.0.0.1/callback")!, RedirectURI(registered: "http://[::1]/callback")!,
    ])

    init(clientId: String, redirectURIs: [RedirectURI]) {
        self.clientId = clientId
        self.redirectURIs = redirectURIs
    }

    init(_ registration: OAuthClientRegistration) {
        self.init(clientId: registration.clientId, redirectURIs: registration.redirectURIs.compactMap(RedirectURI.init(registered:)))
    }

    /// Whether the client gets a refresh token without asking for `offline_access`.
    var alwaysGetsRefreshToken: Bool { clientId == Self.cliClientId }

    /// True when `presented` matches one of the registered redirect URIs.
    func accepts(redirectURI presented: String) -> Bool {
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

    subscript(clientId: String) -> OAuthClient? { byId[clientId] }
}
