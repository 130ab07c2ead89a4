import AgentProtocol
import Interaction
import Prompts
import Settings

/// The person at the desktop, for requests that reach the agent with no
/// socket client to answer them (an invoke URL the desktop hands over
/// D-Bus): confirmations through pinentry's CONFIRM, PINs through its
/// GETPIN. With no pinentry (no `$PASSKEY_PINENTRY`, no display) every
/// question is a refusal: nothing goes ahead that the person did not see.
public struct DesktopInteraction: UserInteraction {
    private let environment: [String: String]

    public init(environment: [String: String] = ProcessEnvironment.current) {
        self.environment = environment
    }

    /// No one to tell "touch your key" but the key's own blinking.
    public func progress(_ stage: ProgressStage) {}

    public func pin(_ request: PINRequest) async throws -> String {
        let pinentry = try available()
        let note = request.triesLeft.map { "Wrong PIN: \($0) \($0 == 1 ? "try" : "tries") left." }
        switch await pinentry.pin(title: "passkey-agent", description: request.reason, prompt: request.what, error: note) {
        case .pin(let pin): return pin
        case .cancelled: throw AgentError(.cancelled, "the PIN prompt was cancelled")
        case .failed(let why): throw AgentError(.pinRequired, "could not ask for the \(request.what) with pinentry: \(why)")
        }
    }

    public func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int {
        throw AgentError(.userSelectionRequired,
                         "several accounts on the key match and nothing here can ask which: \(accounts.map(\.label).joined(separator: ", "))")
    }

    public func confirm(_ request: ConfirmationRequest) async throws -> Bool {
        switch try await available().confirmation(title: "passkey-agent", description: request.text, allow: "Allow", deny: "Deny") {
        case .allowed: return true
        case .declined: return false
        case .failed(let why): throw AgentError(.denied, "could not ask for your confirmation with pinentry (\(why)); nothing was done")
        }
    }

    private func available() throws(AgentError) -> Pinentry {
        guard let pinentry = Pinentry.available(environment: environment) else {
            throw AgentError(.denied, "this needs you to answer, but the agent has no pinentry to ask with "
                             + "(install pinentry with a display, or set PASSKEY_PINENTRY for the agent); nothing was done")
        }
        return pinentry
    }
}
