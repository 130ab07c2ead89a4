import AgentProtocol
import Interaction
import Locking

/// The person at the other end of a request, scripted: each question is
/// recorded and answered from the script, in order. Not a stand-in for a part
/// of the agent: it plays the one thing a test cannot run, the person.
package final class ScriptedPerson: UserInteraction, Sendable {
    package enum Answer: Sendable {
        case pin(String)
        case choice(Int)
        case confirm(Bool)
        case refuse(AgentError)
        /// Runs `action` (on the asking thread), then answers `then`.
        case after(@Sendable () -> Void, then: Bool)
    }

    private let state: Locked<(script: [Answer], pins: [PINRequest], confirmations: [ConfirmationRequest], stages: [ProgressStage])>

    package init(_ script: [Answer] = []) { state = Locked((script, [], [], [])) }

    package var pinQuestions: [PINRequest] { state.withLock { $0.pins } }
    package var confirmations: [ConfirmationRequest] { state.withLock { $0.confirmations } }
    package var progressStages: [ProgressStage] { state.withLock { $0.stages } }
    /// Answers of the script not yet given.
    package var unanswered: Int { state.withLock { $0.script.count } }

    private func next() throws -> Answer {
        try state.withLock { state in
            guard !state.script.isEmpty else { throw AgentError(.cancelled, "the script has no more answers") }
            return state.script.removeFirst()
        }
    }

    package func progress(_ stage: ProgressStage) { state.withLock { $0.stages.append(stage) } }

    package func pin(_ request: PINRequest) async throws -> String {
        state.withLock { $0.pins.append(request) }
        switch try next() {
        case .pin(let pin): return pin
        case .refuse(let error): throw error
        default: throw AgentError(.internal, "the script did not expect a PIN question")
        }
    }

    package func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int {
        switch try next() {
        case .choice(let index): return index
        case .refuse(let error): throw error
        default: throw AgentError(.internal, "the script did not expect an account question")
        }
    }

    package func confirm(_ request: ConfirmationRequest) async throws -> Bool {
        state.withLock { $0.confirmations.append(request) }
        switch try next() {
        case .confirm(let allowed): return allowed
        case .after(let action, let allowed):
            action()
            return allowed
        case .refuse(let error): throw error
        default: throw AgentError(.internal, "the script did not expect a confirmation")
        }
    }
}
