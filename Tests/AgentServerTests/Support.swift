import AgentProtocol
import Foundation
import Interaction
import Locking
import NIOCore
import NIOEmbedded

/// Bytes as a NIO buffer, the way a socket read hands them to the pipeline.
func buffer(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

func buffer(_ bytes: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: bytes) }

extension EmbeddedChannel {
    /// Every line the pipeline wrote out so far, as text.
    func writtenLines() throws -> [String] {
        var text = ""
        while let written = try readOutbound(as: ByteBuffer.self) { text += String(buffer: written) }
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Every frame passed on to the next handler so far, as text.
    func passedOn() throws -> [String] {
        var frames: [String] = []
        while let frame = try readInbound(as: ByteBuffer.self) { frames.append(String(buffer: frame)) }
        return frames
    }

    /// Active, as an accepted connection is when its pipeline starts.
    func activate() throws {
        try connect(to: SocketAddress(unixDomainSocketPath: "/agent.sock")).wait()
    }
}

/// A JSON-RPC line as a dictionary (TestSupport's `errorKind`, `errorCode` read it).
func json(_ line: String) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
        throw AgentError(.internal, "not a JSON object: \(line)")
    }
    return object
}

/// The person at the other end of a request, scripted: each question is
/// recorded and answered from the script, in order. Not a stand-in for a part
/// of the agent: it plays the one thing a test cannot run, the person.
final class ScriptedPerson: UserInteraction, Sendable {
    enum Answer: Sendable {
        case pin(String)
        case choice(Int)
        case confirm(Bool)
        case refuse(AgentError)
        /// Runs `action` (on the asking thread), then answers `then`.
        case after(@Sendable () -> Void, then: Bool)
    }

    private let state: Locked<(script: [Answer], pins: [PINRequest], confirmations: [ConfirmationRequest], stages: [ProgressStage])>

    init(_ script: [Answer] = []) { state = Locked((script, [], [], [])) }

    var pinQuestions: [PINRequest] { state.withLock { $0.pins } }
    var confirmations: [ConfirmationRequest] { state.withLock { $0.confirmations } }
    var progressStages: [ProgressStage] { state.withLock { $0.stages } }

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

/// How many times something happened, from any thread.
final class Counter: Sendable {
    private let count = Locked(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
