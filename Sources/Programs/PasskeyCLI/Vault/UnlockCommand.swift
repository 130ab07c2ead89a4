import AgentProtocol
import ArgumentParser

/// `passkey unlock`: opens the vault in the agent.
struct UnlockCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Unlock the vault in the agent with a PIV card (PIN) or a FIDO2 key (touch, fingerprint or PIN).",
        discussion: """
        Without --slot: the vault's only kind of slot; else piv when one of its cards \
        is present, else fido2. A wrong PIN is never retried for you: the error says \
        how many tries are left. With --pin-stdin, standard input holds the PIN.

        It stays unlocked until `passkey lock`, the idle timeout ([agent] idle-timeout, \
        default 15 minutes), SIGHUP to the agent, or — when a card unlocked it — the \
        card's removal.
        """)

    @Option(name: .long, help: "Which kind of slot to use: piv or fido2.")
    var slot: SlotKindArgument?
    @OptionGroup var slotOptions: VaultSlotOptions
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        if case .inProcess = backend { throw LockedVault.noAgentToHoldIt }
        let interaction = TerminalInteraction(pins: slotOptions.pinOptions.source)
        let report = try await backend.call(AgentUnlockMethod.self,
                                            slotOptions.params(slot: slot?.rawValue, interaction: interaction),
                                            interaction: interaction)
        if runOptions.json { Output.json(report); return }
        let used = report.slots.first { $0.id == report.unlockedWith }
        Output.line("Unlocked\(used.map { " with slot \($0.id) (\($0.type): \($0.description))" } ?? "").")
    }
}

/// `passkey lock`: closes the vault and wipes its key from the agent's memory.
struct LockCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Lock the vault: the agent wipes its key from memory.")

    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let result = try await backend.call(AgentLockMethod.self, NoParams(), interaction: TerminalInteraction(pins: .interactive))
        if runOptions.json { Output.json(result); return }
        if case .inProcess = backend {
            Output.line("No passkey-agent is running: the vault is locked.")
        } else {
            Output.line(result.wasUnlocked ? "Locked." : "The vault was already locked.")
        }
    }
}
