import AgentProtocol
import HTTPTransport
import Settings
import Locking
import Synchronization

/// What the handlers share: settings, paths, the device broker, counters.
/// Each capability adds its handlers in its own file (`register(into:)`).
public final class CoreServices: Sendable {
    public let paths: AgentPaths
    /// config.toml, re-read on SIGHUP and when it changes.
    public let config: LiveSettings
    /// The settings in force now.
    public var settings: Settings { config.current }
    /// `passkey-agent --idle-timeout`: wins over config.toml, reloads included.
    let idleTimeoutOverride = Locked<Int?>(nil)
    /// What the agent's command line set beyond it, for `agent.status` (SettingsInForce.swift).
    let commandLineSettings = Locked<[EffectiveSetting]>([])
    let environment: [String: String]
    let devices: DeviceBroker
    let runningAsAgent: Bool
    let started = ContinuousClock.now
    private let inFlight = Atomic<Int>(0)
    private let lazyHTTP = Locked<HTTPTransport?>(nil)
    let vault: VaultService
    let tokens = TokenState()
    /// `passkey login`: the logins in flight and the providers met.
    let logins = LoginSessions()
    /// Each login account's settings (issuer, client, scopes, subject).
    let accounts: AccountSettingsStore

    init(environment: [String: String], runningAsAgent: Bool) throws(AgentError) {
        paths = AgentPaths(environment: environment)
        do { config = try LiveSettings(path: paths.configFile) } catch {
            throw AgentError(error)
        }
        self.environment = environment
        devices = DeviceBroker(config: config, paths: paths, environment: environment)
        self.runningAsAgent = runningAsAgent
        vault = VaultService(paths: paths, settings: config.current, runningAsAgent: runningAsAgent)
        accounts = AccountSettingsStore(directory: paths.accountsDirectory)
    }

    func register(into table: inout MethodTable.Builder) {
        registerStatus(into: &table)
        registerWebAuthn(into: &table)
        registerPIN(into: &table)
        registerCredentials(into: &table)
        registerKey(into: &table)
        registerPasswordless(into: &table)
        registerCards(into: &table)
        registerVault(into: &table)
        registerTokens(into: &table)
        registerLogin(into: &table)
        registerInvoke(into: &table)
    }

    /// The HTTP client, made on first use: `passkey status` should not pay for one.
    var http: HTTPTransport {
        lazyHTTP.withLock { client in
            if let client { return client }
            let made = HTTPTransport()
            client = made
            return made
        }
    }

    func beginRequest() { inFlight.add(1, ordering: .relaxed) }
    func endRequest() { inFlight.subtract(1, ordering: .relaxed) }
    public var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }
}
