import AgentProtocol
import Settings

/// Reads PINs, PUKs and management keys for the card verbs: from standard
/// input with `--pin-stdin` (one per line, in the order the verb documents),
/// else on the terminal with echo off (new values asked twice), else pinentry.
struct CardSecrets {
    let source: PINSource
    let fromStandardInput: Bool

    init(pinStdin: Bool) {
        fromStandardInput = pinStdin
        source = PINSource(fromStandardInput: pinStdin, environment: ProcessEnvironment.current)
    }

    /// A current PIN or PUK; the prompt says how many tries are left.
    func current(_ what: String, reader: String, triesLeft: Int?) throws(AgentError) -> String {
        let tries = triesLeft.map { " (\($0) \($0 == 1 ? "try" : "tries") left)" } ?? ""
        return try source.read(what, description: "The card in \"\(reader)\" needs its \(what)\(tries).")
    }

    /// A new PIN or PUK: 6–8 characters, typed twice on a terminal.
    func new(_ what: String) throws(AgentError) -> String {
        let first = try source.read("new \(what)", description: "Choose a new \(what) (6 to 8 characters).")
        if !fromStandardInput && TerminalPrompt.isInteractive {
            let again = try source.read("new \(what) again", description: "Type the new \(what) again.")
            guard first == again else { throw AgentError(.invalidInput, "the two new \(what)s differ; nothing was changed") }
        }
        return first
    }

    /// A management key in hex, from the next line of standard input (`--management-key-stdin`).
    func managementKeyFromStandardInput() throws(AgentError) -> String {
        guard let line = StandardInput.readLine() else {
            throw AgentError(.invalidInput, "--management-key-stdin was given but standard input holds no management key")
        }
        return line
    }

    /// Asks a yes/no question on the terminal; `false` unless the answer starts with y.
    static func confirm(_ question: String) -> Bool {
        guard let answer = TerminalPrompt.ask(question + " [y/N] ") else { return false }
        return answer.lowercased().hasPrefix("y")
    }
}
