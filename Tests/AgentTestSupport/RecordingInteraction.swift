import AgentProtocol
import Interaction
import Locking

/// A client that answers no question: it records the progress it is told
/// and the confirmations it was asked for, and says no to each; a PIN or an
/// account choice is refused.
public final class RecordingInteraction: UserInteraction {
    private let stages = Locked<[ProgressStage]>([])
    private let confirmations = Locked<[ConfirmationRequest]>([])

    public init() {}

    public var progressSeen: [ProgressStage] { stages.withLock { $0 } }
    public var confirmationsAsked: [ConfirmationRequest] { confirmations.withLock { $0 } }

    public func progress(_ stage: ProgressStage) { stages.withLock { $0.append(stage) } }
    public func pin(_ request: PINRequest) async throws -> String { throw AgentError(.cancelled, "this test answers no PIN question") }
    public func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int { throw AgentError(.cancelled, "this test chooses no account") }
    public func confirm(_ request: ConfirmationRequest) async throws -> Bool {
        confirmations.withLock { $0.append(request) }
        return false
    }
}

/// The error a call threw, for `#expect` on its kind and details.
public func agentError(_ body: () async throws -> some Any) async -> AgentError? {
    do {
        _ = try await body()
        return nil
    } catch let error as AgentError {
        return error
    } catch {
        return AgentError(.internal, "not an AgentError: \(error)")
    }
}
