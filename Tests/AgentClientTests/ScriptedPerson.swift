import AgentProtocol
import Interaction
import Locking

/// The person at the other end of a request, scripted: each question is
/// recorded and answered from the script, in order. It plays the one thing a
/// test cannot run, the person; the client and the agent are the real ones.
final class ScriptedPerson: UserInteraction, Sendable {
    enum Answer: Sendable {
        case pin(String)
        case choice(Int)
        case confirm(Bool)
        case refuse(AgentError)
    }

    private let state: Locked<(script: [Answer], pins: [PINRequest], stages: [ProgressStage])>

    init(_ script: [Answer] = []) { state = Locked((script, [], [])) }

    var pinQuestions: [PINRequest] { state.withLock { $0.pins } }
    var progressStages: [ProgressStage] { state.withLock { $0.stages } }
    var unanswered: Int { state.withLock { $0.script.count } }

    private func next() throws -> Answer {
        try state.withLock { state in
            guard !state.script.isEmpty else { throw AgentError(.cancelled, "the script has no more answers") }
            return state.script.removeFirst()
        }
    }

    func progress(_ stage: ProgressStage) { state.withLock { $0.stages.append(stage) } }

    func pin(_ request: PINRequest) async throws -> String {
        state.withLock { $0.pins.append(request) }
        switch try next() {
        case .pin(let pin): return pin
        case .refuse(let error): throw error
        default: throw AgentError(.internal, "the script did not expect a PIN question")
        }
    }

    func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int {
        switch try next() {
        case .choice(let index): return index
        case .refuse(let error): throw error
        default: throw AgentError(.internal, "the script did not expect an account question")
        }
    }

    func confirm(_ request: ConfirmationRequest) async throws -> Bool {
        switch try next() {
        case .confirm(let allowed): return allowed
        case .refuse(let error): throw error
        default: throw AgentError(.internal, "the script did not expect a confirmation")
        }
    }
}
