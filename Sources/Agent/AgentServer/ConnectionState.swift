import AgentProtocol
import FoundationEssentials
import Locking
import NIOCore

/// What one client connection has in flight: its running requests (so
/// `$/cancel` and hang-ups can stop them), the requests waiting for their
/// turn, and its unanswered questions.
///
/// Requests that wait on no person (`AnswerWait.machine`) take turns: one
/// runs at a time per connection, the rest wait here in arrival order and
/// count toward the connection's in-flight limit. So every connection holds
/// at most one such job in the pool all connections share, and a client
/// that pipelines `token.list`s cannot queue hundreds of jobs ahead of
/// another client's single `token.get`. Requests that may wait for a
/// person start at once, as before.
final class ConnectionState: Sendable {
    let channel: any Channel
    private let work = Locked<Work>(Work())
    private let questions = Locked<[RPCID: PendingQuestion]>([:])

    private struct Work {
        var running: [RPCID: Task<Void, Never>] = [:]
        /// Running requests that may wait for a person (they take no turns).
        var mayWaitForAPerson: Set<RPCID> = []
        /// The running request that holds this connection's turn.
        var turn: RPCID?
        var waiting: [(id: RPCID, start: @Sendable () -> Task<Void, Never>)] = []

        func has(_ id: RPCID) -> Bool { running[id] != nil || waiting.contains { $0.id == id } }
    }

    init(channel: any Channel) { self.channel = channel }

    /// Requests running or waiting for their turn.
    var requestCount: Int { work.withLock { $0.running.count + $0.waiting.count } }

    /// True when no request in flight may wait for a person: each will end by
    /// itself, so nothing the client could send (`$/cancel`, `$/pin`) is needed
    /// for the connection to move on.
    /// Whether no request that takes turns is running or waiting: then an
    /// answer given at once (a fast path) overtakes none of this client's
    /// earlier requests — a `token.get` pipelined after a `token.put` still
    /// sees what the put stored.
    var holdsNoTurn: Bool { work.withLock { $0.turn == nil && $0.waiting.isEmpty } }

    var waitsOnNoPerson: Bool { work.withLock { $0.mayWaitForAPerson.isEmpty } }

    /// Registers a request and starts it, or queues it behind the running
    /// request that holds the turn when it `takesTurns`; false if the id is
    /// already in flight.
    func begin(_ id: RPCID, takesTurns: Bool, _ start: @escaping @Sendable () -> Task<Void, Never>) -> Bool {
        work.withLock { work in
            guard !work.has(id) else { return false }
            if takesTurns {
                if work.turn != nil {
                    work.waiting.append((id, start))
                    return true
                }
                work.turn = id
            } else {
                work.mayWaitForAPerson.insert(id)
            }
            work.running[id] = start()
            return true
        }
    }

    /// A request answered: the next waiting one, if any, gets the turn.
    func finish(_ id: RPCID) {
        work.withLock { work in
            work.running.removeValue(forKey: id)
            work.mayWaitForAPerson.remove(id)
            guard work.turn == id else { return }
            work.turn = nil
            guard !work.waiting.isEmpty else { return }
            let next = work.waiting.removeFirst()
            work.turn = next.id
            work.running[next.id] = next.start()
        }
    }

    /// `$/cancel`: the request stops and answers `cancelled`; one still
    /// waiting for its turn is answered at once and never starts.
    func cancel(_ id: RPCID) {
        enum Found { case running(Task<Void, Never>), waiting, nothing }
        let found = work.withLock { work -> Found in
            if let index = work.waiting.firstIndex(where: { $0.id == id }) {
                work.waiting.remove(at: index)
                return .waiting
            }
            return work.running[id].map(Found.running) ?? .nothing
        }
        switch found {
        case .running(let task): task.cancel()
        case .waiting: respond(RPCResponse(id: id, error: AgentError(.cancelled, "the request was cancelled").rpcError))
        case .nothing: break
        }
        questions.withLock { $0.removeValue(forKey: id) }?.resume(with: .failure(CancellationError()))
    }

    /// The client hung up: everything it asked for stops.
    func cancelAll() {
        let running = work.withLock { work in
            work.waiting.removeAll()
            return Array(work.running.values)
        }
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
