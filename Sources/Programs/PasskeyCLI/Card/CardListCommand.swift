import AgentProtocol
import ArgumentParser

/// `passkey card list`: readers, cards, their applications, PIN tries and keys.
struct CardListCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List smart card readers and what the cards in them hold.")

    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let inventory = try await backend.call(CardListMethod.self, NoParams(), interaction: TerminalInteraction(pins: .interactive))
        if runOptions.json { Output.json(inventory); return }
        print(inventory)
    }

    private func print(_ inventory: CardInventoryReport) {
        if inventory.readers.isEmpty {
            Output.line("No smart card reader is connected.")
            return
        }
        for reader in inventory.readers {
            Output.line(reader.name)
            guard reader.cardPresent else {
                Output.line("  card:     none")
                continue
            }
            Output.line("  card:     present, ATR \(reader.atr ?? "?")")
            if let error = reader.error { Output.line("  error:    \(error)") }
            Output.line("  applets:  \(reader.applets.isEmpty ? "none recognised" : reader.applets.joined(separator: ", "))")
            guard let piv = reader.piv else { continue }
            var identity: [String] = []
            if let version = piv.firmwareVersion { identity.append("firmware \(version)") }
            if let serial = piv.serialNumber { identity.append("serial \(serial)") }
            if !identity.isEmpty { Output.line("  PIV:      \(identity.joined(separator: ", "))") }
            Output.line("  PIN:      \(Self.triesText(piv.pinTriesLeft, blocked: piv.pinBlocked, isDefault: piv.pinIsDefault))")
            if piv.pukTriesLeft != nil || piv.pukIsDefault != nil {
                Output.line("  PUK:      \(Self.triesText(piv.pukTriesLeft, blocked: piv.pukTriesLeft == 0, isDefault: piv.pukIsDefault))")
            }
            if let algorithm = piv.managementKeyAlgorithm {
                Output.line("  mgmt key: \(algorithm)\(piv.managementKeyIsDefault == true ? " (the default key: change it)" : "")")
            }
            if piv.keys.isEmpty {
                Output.line("  keys:     none")
            } else {
                Output.line("  keys:")
                for key in piv.keys {
                    let subject = key.certificateSubject.map { "  \($0)" } ?? "  (no certificate)"
                    Output.line("    \(key.slot)  \(key.slotName)  \(key.algorithm ?? "unknown algorithm")\(subject)")
                }
            }
        }
    }

    static func triesText(_ tries: Int?, blocked: Bool, isDefault: Bool?) -> String {
        if blocked { return "BLOCKED" }
        var text = tries.map { "\($0) \($0 == 1 ? "try" : "tries") left" } ?? "verified"
        if isDefault == true { text += " (still the default: change it)" }
        return text
    }
}
