import DevServerBase
/// The authorization server's settings (docs/DEVSERVER.md "OAuth 2.0 / OpenID
/// Connect"): extra public clients, lifetimes, and the ID-token algorithm.
public struct OAuthConfiguration: Sendable {
    /// Clients besides the built-in `cli`: public clients (no secret) that may
    /// use every grant, each with its registered redirect URIs.
    public var clients: [OAuthClientRegistration]
    /// How long access tokens and ID tokens are valid.
    public var accessTokenLifetime: Duration
    /// How long a device code (and its user code) can be approved and redeemed.
    public var deviceCodeLifetime: Duration
    /// The least time between two polls of one device code, in seconds.
    public var deviceInterval: Int
    /// The algorithm ID tokens are signed with. Access tokens are always ES256.
    public var idTokenAlgorithm: IDTokenAlgorithm
    /// Endpoints left out of the OpenID discovery document, and out of the
    /// RFC 8414 metadata (`/.well-known/oauth-authorization-server/oauth2/default`):
    /// a provider that advertises less, as some real ones do. The endpoints still answer.
    public var omittedFromDiscovery: Set<AdvertisedEndpoint>
    public var omittedFromMetadata: Set<AdvertisedEndpoint>

    public init(clients: [OAuthClientRegistration] = [], accessTokenLifetime: Duration = .seconds(3600),
                deviceCodeLifetime: Duration = .seconds(600), deviceInterval: Int = 5,
                idTokenAlgorithm: IDTokenAlgorithm = .es256, omittedFromDiscovery: Set<AdvertisedEndpoint> = [],
                omittedFromMetadata: Set<AdvertisedEndpoint> = []) {
        self.omittedFromDiscovery = omittedFromDiscovery
        self.omittedFromMetadata = omittedFromMetadata
        self.clients = clients
        self.accessTokenLifetime = accessTokenLifetime
        self.deviceCodeLifetime = deviceCodeLifetime
        self.deviceInterval = deviceInterval
        self.idTokenAlgorithm = idTokenAlgorithm
    }

    package func validate() throws(DevServerError) {
        for (name, lifetime) in [("access token lifetime", accessTokenLifetime), ("device code lifetime", deviceCodeLifetime)] {
            let seconds = lifetime.components.seconds
            guard seconds >= 1, seconds <= Int64(Lifetimes.maxSeconds) else {
                throw .invalidConfiguration("\(name) \(seconds) s", reason: "use 1 to \(Lifetimes.maxSeconds) seconds")
            }
        }
        guard (1...3600).contains(deviceInterval) else {
            throw .invalidConfiguration("device interval \(deviceInterval) s", reason: "use 1 to 3600 seconds")
        }
        var seen: Set<String> = [OAuthClient.cliClientId]
        for client in clients {
            guard seen.insert(client.clientId).inserted else {
                throw .invalidConfiguration("OAuth client \"\(client.clientId)\"", reason: "it is registered twice (cli is built in)")
            }
        }
    }
}

/// The endpoints a test may hide from the metadata documents.
public enum AdvertisedEndpoint: String, Sendable, CaseIterable {
    case revocation = "revocation_endpoint"
    case deviceAuthorization = "device_authorization_endpoint"
}

/// The two ID-token signature algorithms the server offers.
public enum IDTokenAlgorithm: String, Sendable, CaseIterable {
    case es256 = "ES256"
    case rs256 = "RS256"
}
