import AgentProtocol
import ArgumentParser
import PIV

#if canImport(Glibc)
import Glibc
#endif

/// `passkey card setup`: the 9D key and certificate the vault's `piv` key slot uses.
struct CardSetupCommand: AsyncParsableCommand {
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

    @OptionGroup var output: CardOutputOptions

    func run() async throws {
        do {
            try setUp()
        } catch {
            throw Output.fail(error, json: output.json)
        }
    }

    private func setUp() throws(AgentError) {
        let context = try CardContext.pcsc()
        let session = try CardContext.session(reader: reader, context: context)
        let plan = try CardContext.run { () throws(PIVError) in
            try CardSetup.plan(session: session, usingDefaultManagementKey: !managementKeyStdin)
        }
        if plan.existingKey == .present && !force {
            throw CardErrors.agentError(.keyExists(slot: plan.slot))
        }
        announce(plan)
        try confirm()

        let secrets = CardSecrets(pinStdin: pinStdin)
        let triesLeft = try CardContext.run { () throws(PIVError) in try PINManagement.status(session: session).pinTriesLeft }
        // Asking for a PIN the card will refuse anyway would only confuse.
        if triesLeft == 0 { throw CardErrors.agentError(.pinBlocked) }
        var pin = try secrets.current("PIN", reader: reader, triesLeft: triesLeft)
        defer { for index in pin.indices { pin[index] = 0 } }
        var managementKey: PIVManagementKey?
        if managementKeyStdin {
            let hex = try secrets.managementKeyFromStandardInput()
            managementKey = try CardContext.run { () throws(PIVError) in
                try PIVManagementKey(hex: hex, algorithm: try session.managementKeyAlgorithm())
            }
        }
        let report = try CardContext.run { () throws(PIVError) in
            try CardSetup.run(session: session, pin: pin, managementKey: managementKey, replaceExistingKey: force)
        }
        if output.json {
            Output.json(report)
        } else {
            Output.line("Slot \(report.slot.hex) of the card in \"\(report.reader)\" now holds a new P-256 key.")
            Output.line("  public key:  \(report.publicKey.hex)")
            Output.line("  certificate: \(report.certificateSubject)")
            if report.replacedExistingKey { Output.line("  (the key that was there before is gone)") }
        }
        if TerminalPrompt.isInteractive && !pinStdin && !output.json {
            try offerToChangeDefaults(report, session: session, pin: pin, managementKey: managementKey ?? .default)
        }
    }

    /// "Says what it is about to do before doing it", on stderr so stdout stays the result.
    private func announce(_ plan: CardSetup.Plan) {
        var text = "passkey card setup will, on the card in \"\(plan.reader)\""
        if let serial = plan.serialNumber { text += " (serial \(serial))" }
        text += ":\n"
        for (index, step) in plan.steps.enumerated() { text += "  \(index + 1). \(step)\n" }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }

    private func confirm() throws(AgentError) {
        if yes { return }
        guard TerminalPrompt.isInteractive else {
            throw AgentError(.invalidInput, "not on a terminal: pass --yes to go ahead")
        }
        guard CardSecrets.confirm("Go ahead?") else { throw AgentError(.cancelled, "setup cancelled; nothing was changed") }
    }

    /// On a terminal only, and never forced: offer to replace factory defaults.
    private func offerToChangeDefaults(_ report: CardSetup.Report, session: PIVSession, pin: [UInt8],
                                       managementKey: PIVManagementKey) throws(AgentError) {
        let secrets = CardSecrets(pinStdin: false)
        if report.pinIsDefault == true, CardSecrets.confirm("The card still has the default PIN 123456. Change it now?") {
            let newPIN = try secrets.new("PIN")
            let result = try CardContext.run { () throws(PIVError) in
                try PINManagement.changePIN(session: session, current: pin, new: newPIN)
            }
            Output.line("PIN changed.\(result.pinTriesLeft.map { " \($0) tries left." } ?? "")")
        }
        if report.pukIsDefault != false,
           CardSecrets.confirm("Change the PUK\(report.pukIsDefault == true ? " (still the default 12345678)" : "") now?") {
            let currentPUK = try secrets.current("PUK", reader: reader, triesLeft: nil)
            let newPUK = try secrets.new("PUK")
            _ = try CardContext.run { () throws(PIVError) in
                try PINManagement.changePUK(session: session, current: currentPUK, new: newPUK)
            }
            Output.line("PUK changed.")
        }
        if report.managementKeyIsDefault,
           CardSecrets.confirm("The card uses the default management key. Replace it with a random one (shown once)?") {
            let newKey = try CardContext.run { () throws(PIVError) -> PIVManagementKey in
                let aesCapable = session.firmwareVersion.map { $0 >= PIVFirmwareVersion(major: 5, minor: 4, patch: 0) } ?? false
                let key = try PIVManagementKey.random(algorithm: aesCapable ? .aes192 : .tripleDES)
                try session.withTransaction { session throws(PIVError) in
                    try session.authenticate(with: CardSetup.resolveManagementKey(managementKey, session: session))
                    try session.setManagementKey(key)
                }
                return key
            }
            Output.line("New management key (\(newKey.algorithm)): \(newKey.hexString)")
            Output.line("Store it safely: `passkey card setup --management-key-stdin` and other PIV tools need it.")
        }
    }
}
