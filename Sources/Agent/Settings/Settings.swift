import FoundationEssentials

/// The user's settings from config.toml. Every value may be absent; callers
/// apply command-line overrides first and the documented defaults last.
///
/// ```toml
/// [device]
/// default = "virtual"          # or a /dev/hidrawN path, or "pcsc:READER"
/// virtual-state = "/path/to/virtual-authenticator.json"
///
/// [passwordless]
/// api-url = "https://v4.passwordless.dev"
/// api-key = "myapp:public:0123…"
/// rp-id = "example.org"
/// origin = "https://example.org"
///
/// [agent]
/// idle-timeout = 900           # seconds before the vault locks itself
///
/// [invoke.application.acme]      # an application whose invoke URLs `passkey invoke` accepts
/// issuer = "https://auth-us.beyondidentity.com/v1/tenants/T/realms/R/applications/A"
/// rp-ids = ["beyondidentity.com"] # optional: default the issuer host and its parents to its registrable domain
/// hosts = ["acme.okta.com"]       # optional: more hosts its proof and redirects may go to
///
/// [invoke]
/// trusted-hosts = ["auth.example.com"]   # older form: a whole host as one application
///
/// [credential.gitlab]            # the credential helpers (git, docker): a server's token comes from an account
/// url = "https://gitlab.example.com"   # or host = "registry.example.com:5000" (any scheme)
/// account = "work"
/// username = "oauth2"            # optional: the user name sent with the token
/// ```
public struct Settings: Sendable, Equatable {
    public struct Device: Sendable, Equatable {
        public var defaultDevice: String?
        public var virtualState: String?
    }

    public struct Passwordless: Sendable, Equatable {
        public var apiURL: String?
        public var apiKey: String?
        public var rpId: String?
        public var origin: String?
    }

    public struct Agent: Sendable, Equatable {
        public var idleTimeoutSeconds: Int?
    }

    /// `passkey invoke`: the hosts (`host` or `host:port`) a request JWT's
    /// key set (`jku`) may come from. None by default: nothing is trusted
    /// until the person says so.
    public struct Invoke: Sendable, Equatable {
        public var trustedHosts: [String] = []
        /// `[invoke.application.NAME]` tables, by name.
        public var applications: [Application] = []
    }

    /// A trusted invoke application as config.toml names it; AgentCore
    /// turns it into BeyondIdentity's `TrustedApplication`, which checks it.
    public struct Application: Sendable, Equatable {
        public var name: String
        public var issuer: String
        public var rpIds: [String]?
        public var hosts: [String]
    }

    /// The table prefix of trusted applications.
    static let applicationTablePrefix = "invoke.application."

    /// A `[credential.NAME]` table: which account's token the credential
    /// helpers give a server. The CLI matches a request against `url` or
    /// `host` (CredentialRoutes); nothing here is checked beyond its kind.
    public struct Credential: Sendable, Equatable {
        public var name: String
        public var url: String?
        public var host: String?
        public var account: String
        public var username: String?

        public init(name: String, url: String?, host: String?, account: String, username: String?) {
            self.name = name
            self.url = url
            self.host = host
            self.account = account
            self.username = username
        }
    }

    /// The table prefix of credential routes.
    static let credentialTablePrefix = "credential."

    public var device = Device()
    public var passwordless = Passwordless()
    public var agent = Agent()
    public var invoke = Invoke()
    /// `[credential.NAME]` tables with an `account`, by name.
    public var credentials: [Credential] = []

    public init() {}

    public init(toml document: TOMLDocument) {
        device.defaultDevice = document.string("device", "default")
        device.virtualState = document.string("device", "virtual-state")
        passwordless.apiURL = document.string("passwordless", "api-url") ?? document.string("passwordless", "apiUrl")
        passwordless.apiKey = document.string("passwordless", "api-key") ?? document.string("passwordless", "apiKey")
        passwordless.rpId = document.string("passwordless", "rp-id") ?? document.string("passwordless", "rpId")
        passwordless.origin = document.string("passwordless", "origin")
        agent.idleTimeoutSeconds = document.integer("agent", "idle-timeout").flatMap { $0 >= 0 ? $0 : nil }
        if case .array(let hosts)? = document["invoke", "trusted-hosts"] {
            invoke.trustedHosts = hosts.compactMap { if case .string(let host) = $0, !host.isEmpty { return host } else { return nil } }
        }
        for table in document.tables.keys.sorted() where table.hasPrefix(Self.applicationTablePrefix) {
            guard let issuer = document.string(table, "issuer") else { continue }
            invoke.applications.append(Application(
                name: String(table.dropFirst(Self.applicationTablePrefix.count)), issuer: issuer,
                rpIds: document.strings(table, "rp-ids"), hosts: document.strings(table, "hosts") ?? []))
        }
        for table in document.tables.keys.sorted() where table.hasPrefix(Self.credentialTablePrefix) {
            guard let account = document.string(table, "account"), !account.isEmpty else { continue }
            credentials.append(Credential(
                name: String(table.dropFirst(Self.credentialTablePrefix.count)), url: document.string(table, "url"),
                host: document.string(table, "host"), account: account, username: document.string(table, "username")))
        }
    }

    /// Reads config.toml; a missing file means defaults, a broken one is an error naming the line.
    public static func load(from path: String) throws(SettingsError) -> Settings {
        try read(from: path).settings
    }

    /// Reads config.toml and says what in it was ignored (unknown keys,
    /// values of the wrong kind), each with its line.
    public static func read(from path: String) throws(SettingsError) -> (settings: Settings, warnings: [SettingsWarning]) {
        guard let data = try ConfigFile.contents(of: path) else { return (Settings(), []) }
        guard let text = String(data: data, encoding: .utf8) else { throw .notUTF8(path) }
        let document: TOMLDocument
        do { document = try TOMLDocument(parsing: text) } catch { throw .syntax(path, error) }
        return (Settings(toml: document), SettingsSchema.warnings(for: document))
    }
}

public enum SettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    case notUTF8(String)
    case syntax(String, TOMLDocument.ParseError)
    case unreadable(String, reason: String)

    public var description: String {
        switch self {
        case .notUTF8(let path): return "\(path) is not UTF-8 text"
        case .syntax(let path, let error): return "\(path), \(error.description)"
        case .unreadable(let path, let reason): return "\(path) cannot be read: \(reason)"
        }
    }
}
