import AgentCard
import AgentDevices
import AgentLogin
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import Locking
import Settings

/// The composition root: the runtime every capability shares, each
/// capability built over exactly what it needs, and the methods each adds to
/// the table. Bottom up: devices; the vault (a `fido2` slot needs a key);
/// cards; tokens (in the vault); login (tokens, vault, keys). The agent's
/// own status (`agent.status`, `devices.list`) lives here.
public final class CoreServices: Sendable {
    public let runtime: AgentRuntime
    let deviceCapability: DevicesCapability
    let vaultCapability: VaultCapability
    let cardCapability: CardCapability
    let tokenCapability: TokensCapability
    let loginCapability: LoginCapability

    init(environment: [String: String], runningAsAgent: Bool) throws(AgentError) {
        runtime = try AgentRuntime(environment: environment, runningAsAgent: runningAsAgent)
        deviceCapability = DevicesCapability(runtime: runtime)
        vaultCapability = VaultCapability(runtime: runtime, devices: deviceCapability)
        cardCapability = CardCapability()
        tokenCapability = TokensCapability(runtime: runtime, vault: vaultCapability)
        loginCapability = LoginCapability(runtime: runtime, devices: deviceCapability, vault: vaultCapability, tokens: tokenCapability)
    }

    func register(into table: inout MethodTable.Builder) {
        registerStatus(into: &table)
        deviceCapability.register(into: &table)
        cardCapability.register(into: &table)
        vaultCapability.register(into: &table)
        tokenCapability.register(into: &table)
        loginCapability.register(into: &table)
    }

    // What the status, the settings report and the programs use.
    public var paths: AgentPaths { runtime.paths }
    public var config: LiveSettings { runtime.config }
    public var settings: Settings { runtime.settings }
    public var environment: [String: String] { runtime.environment }
    public var requestsInFlight: Int { runtime.requestsInFlight }
    var runningAsAgent: Bool { runtime.runningAsAgent }
    var started: ContinuousClock.Instant { runtime.started }
    var idleTimeoutOverride: Locked<Int?> { runtime.idleTimeoutOverride }
    var commandLineSettings: Locked<[EffectiveSetting]> { runtime.commandLineSettings }
    var devices: DeviceBroker { deviceCapability.devices }
    var vault: VaultService { vaultCapability.vault }
}
