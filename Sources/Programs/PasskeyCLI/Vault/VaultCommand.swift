import AgentProtocol
import ArgumentParser

/// `passkey vault …`: the encrypted store the agent keeps tokens in.
struct VaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault",
        abstract: "Create the token vault and manage the devices that open it.",
        discussion: """
        The vault lives in $XDG_DATA_HOME/passkey-agent/vault/. Its data key is wrapped \
        once per key slot: a PIV card (its PIN and key-management key, 9D) or a FIDO2 \
        security key (its hmac-secret: a touch, a fingerprint, or its PIN). docs/VAULT.md \
        describes the format.
        """,
        subcommands: [VaultInit.self, VaultAddSlot.self, VaultRemoveSlot.self, VaultStatus.self])
}

struct VaultInit: Verb {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the vault with its first key slot.",
        discussion: """
        Never overwrites an existing vault. piv: the card needs a key in slot 9D \
        (`passkey card setup`); its PIN proves the card opens the new vault. fido2: the \
        key makes a credential with hmac-secret (a touch, and its fingerprint or PIN \
        when it has one), then a second touch gives the secret.

        With an agent running, the agent creates the vault and keeps it unlocked. \
        Without one, nothing keeps it unlocked: it is locked when this command ends.

        Examples:
          passkey vault init --slot piv --reader "Yubico YubiKey OTP+FIDO+CCID 00 00"
          passkey vault init --slot fido2 --device /dev/hidraw3
        """)

    @Option(name: .long, help: "The first slot: piv (a PIV card) or fido2 (a FIDO2 security key).")
    var slot: SlotKindArgument
    @OptionGroup var slotOptions: VaultSlotOptions
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let interaction = TerminalInteraction(pins: slotOptions.pinOptions.source)
        let report = try await backend.call(VaultInitMethod.self,
                                            slotOptions.params(slot: slot.rawValue, interaction: interaction),
                                            interaction: interaction)
        if runOptions.json { Output.json(report); return }
        Output.line("Created the vault at \(report.path).")
        for slot in report.slots { Output.line("  slot \(slot.id): \(slot.type), \(slot.description)") }
        if case .inProcess = backend {
            Output.line("No passkey-agent is running, so the vault is locked again now: start the agent "
                        + "(`eval $(passkey-agent)`) and run `passkey unlock`.")
        } else {
            Output.line("The agent holds it unlocked.")
        }
    }
}

struct VaultAddSlot: Verb {
    static let configuration = CommandConfiguration(
        commandName: "add-slot",
        abstract: "Add a key slot: another card or security key that opens the vault.",
        discussion: """
        The vault must be unlocked (on a terminal you are offered to unlock it). A backup \
        key is a good idea: a vault whose only card is lost cannot be opened.

        Examples:
          passkey vault add-slot fido2 --device /dev/hidraw3
          passkey vault add-slot piv --reader "Virtual PCD 00 01"
        """)

    @Argument(help: "piv or fido2.")
    var kind: SlotKindArgument
    @OptionGroup var slotOptions: VaultSlotOptions
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let interaction = TerminalInteraction(pins: slotOptions.pinOptions.source)
        let params = try slotOptions.params(slot: kind.rawValue, interaction: interaction)
        let report = try await LockedVault.retryingAfterUnlock(backend) { () throws(AgentError) in
            try await backend.call(VaultAddSlotMethod.self, params, interaction: interaction)
        }
        if runOptions.json { Output.json(report); return }
        if let added = report.slots.max(by: { $0.id < $1.id }) {
            Output.line("Added slot \(added.id): \(added.type), \(added.description).")
        }
    }
}

struct VaultRemoveSlot: Verb {
    static let configuration = CommandConfiguration(
        commandName: "remove-slot",
        abstract: "Remove a key slot by its number (see `passkey vault status`).",
        discussion: "The vault must be unlocked. The last slot is never removed.")

    @Argument(help: "The slot number.")
    var slot: Int
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let interaction = TerminalInteraction(pins: .interactive)
        let report = try await LockedVault.retryingAfterUnlock(backend) { () throws(AgentError) in
            try await backend.call(VaultRemoveSlotMethod.self, .init(slot: slot), interaction: interaction)
        }
        if runOptions.json { Output.json(report); return }
        Output.line("Removed slot \(slot); \(report.slots.count) \(report.slots.count == 1 ? "slot remains" : "slots remain").")
    }
}

struct VaultStatus: Verb {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the vault's key slots, entry count and lock state (no secrets).")

    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let report = try await backend.call(VaultStatusMethod.self, NoParams(), interaction: TerminalInteraction(pins: .interactive))
        if runOptions.json { Output.json(report); return }
        guard report.initialized else {
            Output.line("No vault at \(report.path): create one with `passkey vault init`.")
            return
        }
        Output.line("vault:   \(report.path) (format \(report.formatVersion ?? 0))")
        var state = report.locked ? "locked" : "unlocked with slot \(report.unlockedWith ?? 0)"
        if report.locked, let reason = report.lockReason { state += " (\(reason))" }
        if !report.locked, let seconds = report.idleLockSeconds { state += ", locks after \(seconds) s idle" }
        if case .inProcess = backend { state += " (no agent is running)" }
        Output.line("state:   \(state)")
        Output.line("entries: \(report.entries)")
        Output.line("slots:")
        for slot in report.slots { Output.line("  \(slot.id)  \(slot.type)  \(slot.description)") }
    }
}
