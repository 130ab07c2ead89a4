import AgentProtocol
import ArgumentParser
import PIV

/// `passkey card pin change|unblock`.
struct CardPINCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Change the card's PIN or PUK, or unblock the PIN with the PUK.",
        subcommands: [CardPINChangeCommand.self, CardPINUnblockCommand.self])
}

/// Options of the PIN verbs.
struct CardPINOptions: ParsableArguments {
    @Option(name: .long, help: "The reader holding the card (default: the only PIV card present).")
    var reader: String?

    @Flag(name: .long, help: "Read the secrets from standard input, one per line, in the order the verb lists.")
    var pinStdin = false
}

struct CardPINChangeCommand: AsyncParsableCommand {
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

    @OptionGroup var output: CardOutputOptions

    func run() async throws {
        do throws(AgentError) {
            let context = try CardContext.pcsc()
            let session = try CardContext.session(reader: options.reader, context: context)
            let secrets = CardSecrets(pinStdin: options.pinStdin)
            let status = try CardContext.run { () throws(PIVError) in try PINManagement.status(session: session) }
            let what = puk ? "PUK" : "PIN"
            if (puk ? status.pukTriesLeft : status.pinTriesLeft) == 0 {
                throw CardErrors.agentError(puk ? .pukBlocked : .pinBlocked)
            }
            var current = try secrets.current(what, reader: session.readerName,
                                              triesLeft: puk ? status.pukTriesLeft : status.pinTriesLeft)
            var new = try secrets.new(what)
            defer {
                for index in current.indices { current[index] = 0 }
                for index in new.indices { new[index] = 0 }
            }
            let report = try CardContext.run { () throws(PIVError) in
                puk ? try PINManagement.changePUK(session: session, current: current, new: new)
                    : try PINManagement.changePIN(session: session, current: current, new: new)
            }
            CardPINOutput.print(report, json: output.json)
        } catch {
            throw Output.fail(error, json: output.json)
        }
    }
}

struct CardPINUnblockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unblock",
        abstract: "Set a new PIN with the PUK, restoring the PIN's tries.",
        discussion: """
        With --pin-stdin: the PUK, then the new PIN, one per line. A wrong PUK costs \
        one of its tries; when the PUK is blocked too, only a reset of the card's PIV \
        application (which erases its keys) helps.
        """)

    @OptionGroup var options: CardPINOptions
    @OptionGroup var output: CardOutputOptions

    func run() async throws {
        do throws(AgentError) {
            let context = try CardContext.pcsc()
            let session = try CardContext.session(reader: options.reader, context: context)
            let secrets = CardSecrets(pinStdin: options.pinStdin)
            let status = try CardContext.run { () throws(PIVError) in try PINManagement.status(session: session) }
            if status.pukTriesLeft == 0 { throw CardErrors.agentError(.pukBlocked) }
            var pukValue = try secrets.current("PUK", reader: session.readerName, triesLeft: status.pukTriesLeft)
            var newPIN = try secrets.new("PIN")
            defer {
                for index in pukValue.indices { pukValue[index] = 0 }
                for index in newPIN.indices { newPIN[index] = 0 }
            }
            let report = try CardContext.run { () throws(PIVError) in
                try PINManagement.unblockPIN(session: session, puk: pukValue, newPIN: newPIN)
            }
            CardPINOutput.print(report, json: output.json)
        } catch {
            throw Output.fail(error, json: output.json)
        }
    }
}

enum CardPINOutput {
    static func print(_ report: PINManagement.Report, json: Bool) {
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
