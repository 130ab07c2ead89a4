import AgentProtocol
import ArgumentParser

/// How to reach a key slot's device: `--reader` for a PIV card, `--device`
/// (and `--virtual-state`) for a FIDO2 key, `--pin-stdin` for scripts.
struct VaultSlotOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("piv: the reader holding the card.",
                                            discussion: "Default: the card is looked for in every reader."))
    var reader: String?

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var pinOptions: PINOptions

    /// The params for `agent.unlock`, `vault.init` or `vault.addSlot`. The PIN
    /// is read now with --pin-stdin; otherwise the agent asks when it needs it.
    func params(slot: String?, interaction: TerminalInteraction) throws(AgentError) -> VaultSlotParams {
        let pin = pinOptions.pinStdin
            ? try pinOptions.source.read(slot == "fido2" ? "security key PIN" : "PIN", description: "")
            : nil
        let choice = deviceOptions.choice
        return VaultSlotParams(slot: slot, pin: pin, reader: reader,
                               device: choice.device == nil && choice.virtualState == nil ? nil : choice,
                               interactive: !pinOptions.pinStdin && interaction.canAnswer)
    }
}

/// `--slot piv|fido2`.
enum SlotKindArgument: String, ExpressibleByArgument, CaseIterable {
    case piv, fido2
}
