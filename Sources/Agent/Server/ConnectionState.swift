import AgentProtocol
import FoundationEssentials
import NIOCore
import Synchronization

/// What one client connection has in flight: its running requests (so
/// `$/cancel` and hang-ups can stop them) and its unanswered questions.
final class ConnectionState: Sendable {
    let channel: any Channel
    private let requests = Mutex<[RPCID: Task<Void, Never>]>([:])
    private let questions = Mutex<[RPCID: PendingQuestion]>([:])

    init(channel: any Channel) { self.channel = channel }

    var requestCount: Int { requests.withLock { $0.count } }

    /// Registers a running request; false if the id is already in flight.
    func begin(_ id: RPCID, _ start: () -> Task<Void, Never>) -> Bool {
        requests.withLock { running in
            guard running[id] == nil else { return false }
            running[id] = start()
            return true
        }
    }

    func finish(_ id: RPCID) {
        _ = requests.withLock { $0.removeValue(forKey: id) }
    }

    /// `$/cancel`: the request stops and answers `cancelled`.
    func cancel(_ id: RPCID) {
        requests.withLock { $0[id] }?.cancel()
        questions.withLock { $0.removeValue(forKey: id) }?.resume(with: .failure(CancellationError()))
    }

    /// The client hung up: everything it asked for stops.
    func cancelAll() {
        let running = requests.withLock { $0.values }
        running.forEach { $0.cancel() }
        let waiting = questions.withLock { questions in
            defer { questions.removeAll() }
            return Array(questions.values)
        }
        waiting.forEach { $0.resume(with: .failure(CancellationError())) }
    }

    /// `$/pin` or `$/choose` arrived for request `id`.
    func answer(_ id: RPCID, _ answer: ClientAnswer) {
        questions.withLock { $0.removeValue(forKey: id) }?.resume(with: .success(answer))
    }

    /// Sends `question` and waits for the client's answer (or cancellation, or `timeout`).
    func ask(id: RPCID, question: ProgressParams, timeout: Duration) async throws -> ClientAnswer {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let pending = PendingQuestion(continuation)
                questions.withLock { $0[id] = pending }
                notify(question)
                Task {
                    try? await Task.sleep(for: timeout)
                    pending.resume(with: .failure(AgentError(.timeout, "no answer to the \(question.stage.rawValue) prompt within \(timeout.components.seconds) s")))
                }
            }
        } onCancel: {
            questions.withLock { $0.removeValue(forKey: id) }?.resume(with: .failure(CancellationError()))
        }
    }

    func notify(_ params: ProgressParams) {
        guard let value = try? JSONValue(encoding: params) else { return }
        write(RPCNotification(method: ProgressParams.method, params: value))
    }

    func respond(_ response: RPCResponse) { write(response) }

    /// A response whose result is already JSON (quick methods): only the
    /// envelope is written around it, `{"jsonrpc":"2.0","id":…,"result":…}`.
    func respond(id: RPCID, encodedResult: [UInt8]) {
        // A number is its digits; only a string id needs the encoder's escaping.
        let idBytes: [UInt8]
        switch id {
        case .number(let number): idBytes = Array(String(number).utf8)
        case .string:
            guard let encoded = try? JSONEncoder().encode(id) else { return }
            idBytes = Array(encoded)
        }
        let head = Array(#"{"jsonrpc":"2.0","id":"#.utf8), middle = Array(#","result":"#.utf8)
        var buffer = channel.allocator.buffer(capacity: head.count + idBytes.count + middle.count + encodedResult.count + 2)
        buffer.writeBytes(head)
        buffer.writeBytes(idBytes)
        buffer.writeBytes(middle)
        buffer.writeBytes(encodedResult)
        buffer.writeBytes([UInt8(ascii: "}"), UInt8(ascii: "\n")])
        channel.writeAndFlush(buffer, promise: nil)
    }

    private func write<T: Encodable>(_ message: T) {
        guard var bytes = try? JSONEncoder().encode(message) else { return }
        bytes.append(UInt8(ascii: "\n"))
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        channel.writeAndFlush(buffer, promise: nil)
    }
}
