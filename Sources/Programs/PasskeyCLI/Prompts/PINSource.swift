import AgentProtocol
import Prompts
import Settings

/// Where the CLI gets a PIN when the key (or card) needs one:
/// `--pin-stdin` (scripts), else the terminal, else pinentry on a desktop,
/// else a clear error — never a command-line argument.
package struct PINSource: Sendable {
    var fromStandardInput: Bool
    var environment: [String: String]

    /// `what` names the secret in prompts ("security key PIN", "card PIN", "PUK").
    package func read(_ what: String, description: String, retryNote: String? = nil) throws(AgentError) -> String {
        if fromStandardInput {
            guard let line = StandardInput.readLine() else {
                throw AgentError(.pinRequired, "--pin-stdin was given but standard input holds no \(what)")
            }
            return line
        }
        if TerminalPrompt.isInteractive {
            if let retryNote { TerminalPrompt.status(retryNote) }
            guard let pin = TerminalPrompt.readSecret(prompt: "\(description)\nEnter the \(what): ") else {
                throw AgentError(.cancelled, "no \(what) was entered")
            }
            return pin
        }
        if let pinentry = Pinentry.available(environment: environment) {
            switch pinentry.getPIN(title: "passkey-agent", description: description,
                                   prompt: "\(what):", error: retryNote) {
            case .pin(let pin): return pin
            case .cancelled: throw AgentError(.cancelled, "the \(what) prompt was cancelled")
            case .failed(let why): throw AgentError(.pinRequired, "could not ask for the \(what) with pinentry: \(why)")
            }
        }
        throw AgentError(.pinRequired,
                         "the \(what) is needed, but there is no terminal or pinentry to ask with; pass it with --pin-stdin")
    }
}

extension PINSource {
    /// For verbs without --pin-stdin: the terminal, else pinentry.
    static var interactive: PINSource {
        PINSource(fromStandardInput: false, environment: ProcessEnvironment.current)
    }
}
