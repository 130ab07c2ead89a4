import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import Settings

/// The settings the agent runs with and what decided each: the command
/// line beats config.toml, config.toml beats the default. `agent.status`
/// reports them, so a flag that overrides the user's file is seen.
extension CoreServices {
    /// The idle timeout in force, in seconds (0: never): `passkey-agent
    /// --idle-timeout`, else `[agent] idle-timeout` (re-read as the file
    /// changes), else 15 minutes; at most ten years, as the vault keeps it.
    /// It locks the vault, and makes a socket-activated agent exit.
    public var idleTimeoutInForce: (seconds: Int, source: SettingSource) {
        let longest = Int(clamping: VaultService.maximumIdleTimeout.components.seconds)
        if let flag = idleTimeoutOverride.withLock({ $0 }) { return (min(flag, longest), .flag) }
        if let file = settings.agent.idleTimeoutSeconds { return (min(file, longest), .configFile) }
        return (VaultService.defaultIdleTimeoutSeconds, .default)
    }

    /// What only the agent's command line sets (its connection limits, its
    /// log level), each as a flag or its default; recorded once at start.
    public func recordCommandLine(_ settings: [(flag: String, value: String, given: Bool)]) {
        let recorded = settings.map {
            EffectiveSetting(name: $0.flag, value: $0.value, source: ($0.given ? SettingSource.flag : .default).rawValue)
        }
        commandLineSettings.withLock { $0 = recorded }
    }

    /// Every setting config.toml can hold, then the command line's.
    func settingsInForce() -> [EffectiveSetting] {
        var list: [EffectiveSetting] = []
        for (name, value) in settings.fileValues {
            switch (name, value) {
            case ("agent.idle-timeout", _):
                let (seconds, source) = idleTimeoutInForce
                list.append(EffectiveSetting(name: name, value: String(seconds), source: source.rawValue))
            case ("device.virtual-state", nil):
                list.append(EffectiveSetting(name: name, value: paths.virtualAuthenticatorState, source: SettingSource.default.rawValue))
            case (_, let value?):
                list.append(EffectiveSetting(name: name, value: value, source: SettingSource.configFile.rawValue))
            case (_, nil):
                list.append(EffectiveSetting(name: name, value: nil, source: SettingSource.default.rawValue))
            }
        }
        return list + commandLineSettings.withLock { $0 }
    }
}
