import AgentProtocol
import ArgumentParser

/// `passkey card setup`: the 9D key and certificate the vault's `piv` key slot uses.
struct CardSetupCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Generate the key-management key (slot 9D) passkey-agent uses, with a self-signed certificate.",
        discussion: """
        Says what it will do, then asks to go ahead (on a terminal; elsewhere pass --yes). \
        It never replaces a key already in slot 9D unless --force is given.

        With --pin-stdin, standard input holds the PIN on the first line, and with \
        --management-key-stdin the management key (hex) on the next line. Without \
        --management-key-stdin the card's default management key is used.

        On a terminal, it then offers to change a default PIN, PUK or management key.
        """)

    @Option(name: .long, help: "The reader holding the card, as `passkey card list` shows it.")
    var reader: String

    @Flag(name: .long, help: "Read the PIN from standard input (first line).")
    var pinStdin = false

    @Flag(name: .long, help: "Read the management key (hex) from standard input (the line after the PIN).")
    var managementKeyStdin = false

    @Flag(name: .long, help: "Go ahead without asking.")
    var yes = false

    @Flag(name: .long, help: "Replace a key already in slot 9D (it is lost for good).")
    var force = false

    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let interaction = TerminalInteraction(pins: .interactive)
        let plan = try await backend.call(CardPlanMethod.self, .init(reader: reader, defaultManagementKey: !managementKeyStdin),
                                          interaction: interaction)
        if plan.existingKey == .present && !force {
            throw AgentError(.alreadyRegistered,
                             "slot \(plan.slot) already holds a key; pass --force to replace it (the old key is lost for good)")
        }
        announce(plan)
        try confirm()

        let secrets = CardSecrets(pinStdin: pinStdin)
        let status = try await backend.call(CardPINStatusMethod.self, .init(reader: reader), interaction: interaction)
        // Asking for a PIN the card will refuse anyway would only confuse.
        if status.pinTriesLeft == 0 { throw AgentError.cardBlocked(.pin) }
        let pin = try secrets.current("PIN", reader: reader, triesLeft: status.pinTriesLeft)
        let managementKey = managementKeyStdin ? try secrets.managementKeyFromStandardInput() : nil
        let report = try await backend.call(CardSetupMethod.self,
                                            .init(reader: reader, pin: pin, managementKey: managementKey, force: force),
                                            interaction: interaction)
        if runOptions.json {
            Output.json(report)
        } else {
            Output.line("Slot \(report.slot) of the card in \"\(report.reader)\" now holds a new P-256 key.")
            Output.line("  public key:  \(report.publicKey.point)")
            Output.line("  certificate: \(report.certificateSubject)")
            if report.replacedExistingKey { Output.line("  (the key that was there before is gone)") }
        }
        if TerminalPrompt.isInteractive && !pinStdin && !runOptions.json {
            try await offerToChangeDefaults(report, pin: pin, managementKey: managementKey, backend: backend)
        }
    }

    /// "Says what it is about to do before doing it", on stderr so stdout stays the result.
    private func announce(_ plan: CardSetupPlan) {
        var text = "passkey card setup will, on the card in \"\(plan.reader)\""
        if let serial = plan.serialNumber { text += " (serial \(serial))" }
        text += ":\n"
        for (index, step) in plan.steps.enumerated() { text += "  \(index + 1). \(step)\n" }
        StandardError.write(text)
    }

    private func confirm() throws(AgentError) {
        if yes { return }
        guard TerminalPrompt.isInteractive else {
            throw AgentError(.invalidInput, "not on a terminal: pass --yes to go ahead")
        }
        guard CardSecrets.confirm("Go ahead?") else { throw AgentError(.cancelled, "setup cancelled; nothing was changed") }
    }

    /// On a terminal only, and never forced: offer to replace factory defaults.
    private func offerToChangeDefaults(_ report: CardSetupReport, pin: String, managementKey: String?,
                                       backend: Backend) async throws(AgentError) {
        let secrets = CardSecrets(pinStdin: false)
        let interaction = TerminalInteraction(pins: .interactive)
        if report.pinIsDefault == true, CardSecrets.confirm("The card still has the default PIN 123456. Change it now?") {
            let result = try await backend.call(CardChangePINMethod.self,
                                                .init(reader: reader, current: pin, new: try secrets.new("PIN")),
                                                interaction: interaction)
            Output.line("PIN changed.\(result.pinTriesLeft.map { " \($0) tries left." } ?? "")")
        }
        if report.pukIsDefault != false,
           CardSecrets.confirm("Change the PUK\(report.pukIsDefault == true ? " (still the default 12345678)" : "") now?") {
            let current = try secrets.current("PUK", reader: reader, triesLeft: nil)
            _ = try await backend.call(CardChangePINMethod.self,
                                       .init(reader: reader, puk: true, current: current, new: try secrets.new("PUK")),
                                       interaction: interaction)
            Output.line("PUK changed.")
        }
        if report.managementKeyIsDefault,
           CardSecrets.confirm("The card uses the default management key. Replace it with a random one (shown once)?") {
            let newKey = try await backend.call(CardReplaceManagementKeyMethod.self,
                                                .init(reader: reader, managementKey: managementKey),
                                                interaction: interaction)
            Output.line("New management key (\(newKey.algorithm)): \(newKey.managementKey)")
            Output.line("Store it safely: `passkey card setup --management-key-stdin` and other PIV tools need it.")
        }
    }
}

import StandardError
