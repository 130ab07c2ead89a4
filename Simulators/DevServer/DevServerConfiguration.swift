import BeyondIdentityDevServer
import DevServerBase
import IDXDevServer
import Logging
import OAuthDevServer
import WebAuthn

/// How a devserver runs: where it listens, which relying party it serves,
/// where it keeps its state, and the knobs tests need.
public struct DevServerConfiguration: Sendable {
    /// The address to listen on. Only loopback addresses are accepted: the
    /// server speaks plain HTTP and its secret is printed at start-up.
    public var host: String
    /// 0 picks a free port; `RunningDevServer.port` says which.
    public var port: Int
    /// The app id, the text before the first `:` of the keys.
    public var appId: String
    /// RP IDs the app may use; requests naming another are refused. The first is the primary one.
    public var rpIds: [String]
    /// Origins the app may use (`https://host[:port]`, `http://localhost:port`,
    /// `android:apk-key-hash:…`). Empty means `https://<rpId>` for each RP ID.
    public var origins: [String]
    /// A directory that keeps keys, users, aliases and credentials across
    /// restarts; nil keeps everything in memory.
    public var dataDirectory: String?
    /// How long a `/register/begin` or `/signin/begin` session stays valid.
    public var sessionLifetime: Duration
    /// How long a verify token from a completed ceremony stays valid.
    public var verifyTokenLifetime: Duration
    /// The default lifetime of a register token without `expiresAt`.
    public var registerTokenLifetime: Duration
    /// What `/signin/begin` asks of user verification (the hosted service's
    /// sign-in configuration); `.required` makes sign-ins demand UV.
    public var signInUserVerification: UserVerificationRequirement
    /// Where "now" comes from; tests move it to expire tokens.
    public var clock: DevServerClock
    /// Shut down gracefully on SIGTERM and SIGINT. The executable sets it; a
    /// program embedding the server keeps its own signal handling.
    public var handlesTerminationSignals: Bool
    /// The authorization server under `/oauth2/default`.
    public var oauth: OAuthConfiguration
    /// The Beyond-Identity-like IdP under `/bi`.
    public var bi: BIConfiguration
    /// The Okta Identity Engine (IDX) subset: interact and /idp/idx.
    public var idx: IDXConfiguration
    /// Request logs: method, path, status and duration only — never headers,
    /// bodies, keys or tokens.
    public var logger: Logger

    public init(host: String = "127.0.0.1", port: Int = 0, appId: String = "devapp",
                rpIds: [String] = ["localhost"], origins: [String] = [], dataDirectory: String? = nil,
                sessionLifetime: Duration = .seconds(120), verifyTokenLifetime: Duration = .seconds(120),
                registerTokenLifetime: Duration = .seconds(120),
                signInUserVerification: UserVerificationRequirement = .preferred,
                clock: DevServerClock = .system, handlesTerminationSignals: Bool = false,
                oauth: OAuthConfiguration = OAuthConfiguration(), bi: BIConfiguration = BIConfiguration(),
                idx: IDXConfiguration = IDXConfiguration(), logger: Logger? = nil) {
        self.host = host
        self.port = port
        self.appId = appId
        self.rpIds = rpIds
        self.origins = origins
        self.dataDirectory = dataDirectory
        self.sessionLifetime = sessionLifetime
        self.verifyTokenLifetime = verifyTokenLifetime
        self.registerTokenLifetime = registerTokenLifetime
        self.signInUserVerification = signInUserVerification
        self.clock = clock
        self.handlesTerminationSignals = handlesTerminationSignals
        self.oauth = oauth
        self.bi = bi
        self.idx = idx
        self.logger = logger ?? DevServer.standardErrorLogger(level: .info)
    }

    /// The origins in force: the configured ones, or `https://<rpId>` for each RP ID.
    public var effectiveOrigins: [String] {
        origins.isEmpty ? rpIds.map { "https://\($0)" } : origins
    }
}
