import AgentProtocol

/// What the CLI does when the vault is locked: on a terminal it offers to
/// unlock it (through the same backend) and tries once more; otherwise the
/// `locked` error stands, one clear line.
enum LockedVault {
    static func retryingAfterUnlock<T>(_ backend: Backend,
                                       _ body: () async throws(AgentError) -> T) async throws(AgentError) -> T {
        do {
            return try await body()
        } catch where error.kind == .locked && TerminalPrompt.isInteractive {
            guard CardSecrets.confirm("The vault is locked. Unlock it now?") else { throw error }
            let interaction = TerminalInteraction(pins: .interactive)
            _ = try await backend.call(AgentUnlockMethod.self, VaultSlotParams(interactive: true), interaction: interaction)
            if case .inProcess = backend {
                TerminalPrompt.status("(No passkey-agent is running: the vault is unlocked for this command only.)")
            }
            return try await body()
        }
    }

    /// `passkey unlock` without an agent: nothing would keep the vault open.
    static let noAgentToHoldIt = AgentError(
        .locked, "no passkey-agent is running, so nothing would keep the vault unlocked: "
            + "start it (`eval $(passkey-agent)`, or `systemctl --user start passkey-agent.socket`) and run `passkey unlock` again")
}
