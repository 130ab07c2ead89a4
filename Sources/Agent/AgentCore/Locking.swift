import AgentDevices
import AgentRuntime
import AgentTokens
import AgentVault

extension CoreServices {
    /// Locks the vault and wipes its data key from memory (SIGHUP; also what
    /// `agent.lock`, the idle timeout and card removal do). Safe to call from
    /// any thread, and when nothing is unlocked.
    public func lockEverything(reason: String) {
        vault.lock(reason: reason)
    }

    /// `passkey-agent --idle-timeout SECONDS`: overrides `[agent] idle-timeout`
    /// of config.toml for the vault's idle lock (0: never lock for inactivity;
    /// longer than ten years: ten years, see `VaultService.maximumIdleTimeout`).
    public func overrideVaultIdleTimeout(seconds: Int?) {
        guard let seconds else { return }
        idleTimeoutOverride.withLock { $0 = seconds }
        vault.setIdleTimeout(seconds > 0 ? .seconds(seconds) : nil)
    }
}

extension CoreServices {
    /// Re-reads config.toml (`force`: SIGHUP; otherwise only when the file
    /// changed) and applies it. Everything but the idle timeout is read per
    /// request, so only that needs pushing — unless `--idle-timeout` set it.
    public func reloadSettings(force: Bool) -> LiveSettings.Outcome {
        let before = settings.agent.idleTimeoutSeconds
        let outcome = config.reload(force: force)
        let after = settings.agent.idleTimeoutSeconds
        if case .reloaded = outcome, before != after, idleTimeoutOverride.withLock({ $0 }) == nil {
            let seconds = after ?? VaultService.defaultIdleTimeoutSeconds
            vault.setIdleTimeout(seconds > 0 ? .seconds(seconds) : nil)
        }
        return outcome
    }
}
