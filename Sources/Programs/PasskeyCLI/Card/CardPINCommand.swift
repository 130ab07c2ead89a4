import AgentProtocol
import ArgumentParser

struct CardPINCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Change the card's PIN or PUK, or unblock the PIN with the PUK.",
        subcommands: [CardPINChangeCommand.self, CardPINUnblockCommand.self])
}

struct CardPINOptions: ParsableArguments {
    @Option(name: .long, help: "The reader holding the card (default: the only PIV card present).")
    var reader: String?

    @Flag(name: .long, help: "Read the secrets from standard input, one per line, in the order the verb lists.")
    var pinStdin = false
}

struct CardPINChangeCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "change",
        abstract: "Change the PIN (or, with --puk, the PUK).",
        discussion: """
        With --pin-stdin: the current PIN, then the new PIN (with --puk: the current \
        PUK, then the new PUK), one per line. A wrong current value costs one try; \
        the answer says how many are left.
        """)

    @OptionGroup var options: CardPINOptions

    @Flag(name: .long, help: "Change the PUK instead of the PIN.")
    var puk = false

    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let interaction = TerminalInteraction(pins: .interactive)
        let status = try await backend.call(CardPINStatusMethod.self, .init(reader: options.reader), interaction: interaction)
        let what = puk ? "PUK" : "PIN"
        let triesLeft = puk ? status.pukTriesLeft : status.pinTriesLeft
        if triesLeft == 0 { throw AgentError.cardBlocked(puk ? .puk : .pin) }
        let secrets = CardSecrets(pinStdin: options.pinStdin)
        let current = try secrets.current(what, reader: status.reader, triesLeft: triesLeft)
        let new = try secrets.new(what)
        let report = try await backend.call(CardChangePINMethod.self,
                                            .init(reader: status.reader, puk: puk, current: current, new: new),
                                            interaction: interaction)
        CardPINOutput.print(report, json: runOptions.json)
    }
}

struct CardPINUnblockCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "unblock",
        abstract: "Set a new PIN with the PUK, restoring the PIN's tries.",
        discussion: """
        With --pin-stdin: the PUK, then the new PIN, one per line. A wrong PUK costs \
        one of its tries; when the PUK is blocked too, only a reset of the card's PIV \
        application (which erases its keys) helps.
        """)

    @OptionGroup var options: CardPINOptions
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let interaction = TerminalInteraction(pins: .interactive)
        let status = try await backend.call(CardPINStatusMethod.self, .init(reader: options.reader), interaction: interaction)
        if status.pukTriesLeft == 0 { throw AgentError.cardBlocked(.puk) }
        let secrets = CardSecrets(pinStdin: options.pinStdin)
        let puk = try secrets.current("PUK", reader: status.reader, triesLeft: status.pukTriesLeft)
        let newPIN = try secrets.new("PIN")
        let report = try await backend.call(CardUnblockPINMethod.self, .init(reader: status.reader, puk: puk, newPin: newPIN),
                                            interaction: interaction)
        CardPINOutput.print(report, json: runOptions.json)
    }
}

enum CardPINOutput {
    static func print(_ report: CardPINReport, json: Bool) {
        if json { Output.json(report); return }
        let done: String
        switch report.operation {
        case .changePIN: done = "PIN changed"
        case .changePUK: done = "PUK changed"
        case .unblockPIN: done = "PIN unblocked and set"
        }
        var counts: [String] = []
        if let pin = report.pinTriesLeft { counts.append("PIN: \(pin) \(pin == 1 ? "try" : "tries") left") }
        if let puk = report.pukTriesLeft { counts.append("PUK: \(puk) \(puk == 1 ? "try" : "tries") left") }
        Output.line(counts.isEmpty ? "\(done)." : "\(done). \(counts.joined(separator: ", ")).")
    }
}
