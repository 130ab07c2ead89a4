import AgentProtocol
import HTTPTransport
import Locking
import Settings

/// What every capability of the agent shares: where its files are, the
/// settings in force (config.toml, re-read when it changes), the
/// environment, whether this process is the agent, request counters and the
/// one HTTP client. Each capability (AgentDevices, AgentVault, AgentCard,
/// AgentTokens, AgentCore's login) holds it and its own state; AgentCore
/// composes them (docs/ARCHITECTURE.md, "Sources/Agent").
public final class AgentRuntime: Sendable {
    public let paths: AgentPaths
    /// config.toml, re-read on SIGHUP and when it changes.
    public let config: LiveSettings
    /// The settings in force now.
    public var settings: Settings { config.current }
    /// `passkey-agent --idle-timeout`: wins over config.toml, reloads included.
    package let idleTimeoutOverride = Locked<Int?>(nil)
    /// What the agent's command line set beyond it, for `agent.status` (SettingsInForce.swift).
    package let commandLineSettings = Locked<[EffectiveSetting]>([])
    public let environment: [String: String]
    public let runningAsAgent: Bool
    package let started = ContinuousClock.now
    /// Each login account's settings (issuer, client, scopes, subject): tokens refresh by them, logins write them.
    package let accounts: AccountSettingsStore
    /// Requests running now: the method table counts them.
    package let requests = RequestCount()
    private let lazyHTTP = Locked<HTTPTransport?>(nil)

    package init(environment: [String: String], runningAsAgent: Bool) throws(AgentError) {
        paths = AgentPaths(environment: environment)
        do { config = try LiveSettings(path: paths.configFile) } catch {
            throw AgentError(error)
        }
        self.environment = environment
        self.runningAsAgent = runningAsAgent
        accounts = AccountSettingsStore(directory: paths.accountsDirectory)
    }

    /// The HTTP client, made on first use: `passkey status` should not pay for one.
    package var http: HTTPTransport {
        lazyHTTP.withLock { client in
            if let client { return client }
            let made = HTTPTransport()
            client = made
            return made
        }
    }

    public var requestsInFlight: Int { requests.current }
}
