import AgentProtocol
import Prompts
import Interaction
import Settings
import Locking

/// Answers a ceremony's questions at the terminal: "Touch your security
/// key…" (or "Tap…" for a key on an NFC reader) on stderr, PIN prompts (or `--pin-stdin`, or pinentry), and the
/// account choice when several match.
package final class TerminalInteraction: UserInteraction {
    private let pins: PINSource
    private let touchShown = Locked(false)

    package init(pins: PINSource) { self.pins = pins }

    /// Whether questions can be answered at all (a terminal, pinentry, or stdin for the PIN).
    package var canAnswer: Bool {
        TerminalPrompt.isInteractive || Pinentry.available(environment: ProcessEnvironment.current) != nil
    }

    package func progress(_ stage: ProgressStage) {
        guard stage == .touch || stage == .tap else { return }
        let first = touchShown.withLock { shown in
            defer { shown = true }
            return !shown
        }
        guard first else { return }
        // An NFC key is tapped on (or held to) its reader, a USB key touched.
        TerminalPrompt.status(stage == .tap ? "Tap your security key on the reader…" : "Touch your security key…")
    }

    package func pin(_ request: PINRequest) async throws -> String {
        let note = request.triesLeft.map { "Wrong PIN: \($0) \($0 == 1 ? "try" : "tries") left." }
        return try pins.read(request.what, description: request.reason, retryNote: note)
    }

    package func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int {
        guard TerminalPrompt.isInteractive else {
            throw AgentError(.userSelectionRequired,
                             "several accounts on the key match; choose one with --user (\(accounts.map(\.label).joined(separator: ", ")))")
        }
        var menu = "Several accounts on this security key match:\n"
        for (index, account) in accounts.enumerated() { menu += "  \(index + 1)) \(account.label)\n" }
        while true {
            guard let answer = TerminalPrompt.ask(menu + "Which one? [1-\(accounts.count)] ") else {
                throw AgentError(.cancelled, "no account was chosen")
            }
            if let number = Int(answer.filter { $0 != " " && $0 != "\t" }), (1...accounts.count).contains(number) {
                return number - 1
            }
        }
    }

    /// At the terminal when there is one (the question on /dev/tty, "yes"
    /// to allow), else through pinentry's CONFIRM; with neither, a refusal:
    /// an operation someone else started never goes ahead unconfirmed.
    package func confirm(_ request: ConfirmationRequest) async throws -> Bool {
        if TerminalPrompt.isInteractive {
            guard let answer = TerminalPrompt.ask(request.text + "\n\nAllow this? Type `yes` to allow: ") else { return false }
            return answer.split(separator: " ").joined().lowercased() == "yes"
        }
        guard let pinentry = Pinentry.available(environment: ProcessEnvironment.current) else {
            throw AgentError(.denied, "this needs your confirmation, but there is no terminal and no pinentry to ask with "
                             + "(install pinentry, or set PASSKEY_PINENTRY); nothing was done")
        }
        switch pinentry.confirm(title: "passkey-agent", description: request.text, allow: "Allow", deny: "Deny") {
        case .allowed: return true
        case .declined: return false
        case .failed(let why):
            throw AgentError(.denied, "could not ask for your confirmation with pinentry (\(why)); nothing was done")
        }
    }
}

import FoundationEssentials
