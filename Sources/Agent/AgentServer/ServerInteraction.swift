import AgentProtocol
import Interaction
import Locking

/// A request's `UserInteraction` on the socket: progress becomes `progress`
/// notifications; a PIN or account question becomes a `progress` notification
/// with stage `pin`/`choose`, answered by the client's `$/pin` / `$/choose`.
final class ServerInteraction: UserInteraction {
    private let id: RPCID
    private let connection: ConnectionState
    private let answerTimeout: Duration

    init(id: RPCID, connection: ConnectionState, answerTimeout: Duration) {
        self.id = id
        self.connection = connection
        self.answerTimeout = answerTimeout
    }

    func progress(_ stage: ProgressStage) {
        connection.notify(ProgressParams(id: id, stage: .init(stage)))
    }

    func pin(_ request: PINRequest) async throws -> String {
        let answer = try await connection.ask(id: id, question: ProgressParams(id: id, stage: .pin, pin: request),
                                              timeout: answerTimeout)
        guard case .pin(let pin) = answer else { throw AgentError(.invalidRequest, "expected $/pin for request \(id)") }
        return pin
    }

    func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int {
        let answer = try await connection.ask(id: id, question: ProgressParams(id: id, stage: .choose, accounts: accounts),
                                              timeout: answerTimeout)
        guard case .choice(let index) = answer else { throw AgentError(.invalidRequest, "expected $/choose for request \(id)") }
        return index
    }

    func confirm(_ request: ConfirmationRequest) async throws -> Bool {
        let answer = try await connection.ask(id: id, question: ProgressParams(id: id, stage: .confirm, confirmation: request),
                                              timeout: answerTimeout)
        guard case .confirmation(let allowed) = answer else { throw AgentError(.invalidRequest, "expected $/confirm for request \(id)") }
        return allowed
    }
}

/// What a client answered to a question.
enum ClientAnswer: Sendable {
    case pin(String)
    case choice(Int)
    case confirmation(Bool)
}

/// One question waiting for its answer; resumed exactly once.
final class PendingQuestion: Sendable {
    private let continuation: Locked<CheckedContinuation<ClientAnswer, any Error>?>

    init(_ continuation: CheckedContinuation<ClientAnswer, any Error>) {
        self.continuation = Locked(continuation)
    }

    func resume(with result: Result<ClientAnswer, any Error>) {
        continuation.withLock { pending in
            pending?.resume(with: result)
            pending = nil
        }
    }
}
