import AgentProtocol
import FoundationEssentials
import Interaction

#if canImport(Glibc)
import Glibc
#endif

/// The CLI's side of the socket protocol (docs/PROTOCOL.md): one request at
/// a time, progress notifications turned into calls on a `UserInteraction`,
/// and its questions (`pin`, `choose`) answered on the same connection.
public final class AgentConnection {
    private let socket: UnixSocket
    private var nextId: Int64 = 1
    public let path: String

    /// How long a connect may wait for the agent to accept.
    public static let connectTimeout = Duration.seconds(5)
    /// How long writing one request line may take.
    static let writeTimeout = Duration.seconds(10)

    /// Connects to the agent at `path`; nil when no agent listens there (the
    /// CLI then runs in-process). Throws when something listens but cannot be
    /// used: it does not accept in time, or it runs as another user.
    public static func connect(path: String) throws(AgentError) -> AgentConnection? {
        do {
            return AgentConnection(socket: try UnixSocket.connect(path: path, timeout: connectTimeout), path: path)
        } catch {
            switch error {
            case .noAgent: return nil
            case .timedOut:
                throw AgentError(.timeout, "the agent at \(path) accepts no connections within \(connectTimeout.components.seconds) s (it is overloaded or stuck); try again, or restart it")
            case .foreignPeer(let uid):
                throw AgentError(.denied, "refusing to talk to \(path): the program listening there runs as uid \(uid), not as you (uid \(getuid())), so it is not your agent and could collect your PIN; check PASSKEY_AGENT_SOCK")
            case .system(let call, let code):
                throw AgentError(.internal, "\(call) on \(path) failed: \(String(cString: strerror(code)))")
            }
        }
    }

    /// `passkey token get ACCOUNT`'s quick way: one `token.get` on a new
    /// connection, written and read by `TokenGetWire`, on the calling thread.
    /// Nil for anything but a plain success — no agent, another user's, an
    /// error answer, a line it does not read — and the caller then goes the
    /// usual way, which asks again and says what is wrong.
    public static func quickAccessToken(path: String, account: String, minValid: Int) -> AccessTokenResult? {
        guard let request = TokenGetWire.request(id: 1, account: account, minValid: minValid),
              let socket = try? UnixSocket.connect(path: path, timeout: connectTimeout),
              socket.write(request, deadline: .now + writeTimeout),
              let line = try? socket.readLine(deadline: .now + ResponseDeadline.forMethod(TokenGetMethod.self)) else { return nil }
        return TokenGetWire.answer(line, id: 1)
    }

    private init(socket: UnixSocket, path: String) {
        self.socket = socket
        self.path = path
    }

    /// Runs on the caller's executor (`nonisolated(nonsending)`): the light
    /// `passkey` calls it from the main thread and starts no other thread.
    nonisolated(nonsending)
    public func call<M: AgentMethod>(_ method: M.Type, _ params: M.Params,
                                     interaction: any UserInteraction) async throws(AgentError) -> M.Result {
        let id = RPCID.number(nextId)
        nextId += 1
        let request: [UInt8]
        do {
            request = try Array(JSONEncoder().encode(TypedRequest(id: id, method: M.name, params: params)))
        } catch {
            throw AgentError(.internal, "could not encode the request")
        }
        guard socket.write(request + [UInt8(ascii: "\n")], deadline: .now + Self.writeTimeout) else {
            // The agent may have refused the connection (one error line, then
            // close) before the request went out: that line says why.
            throw connectionError() ?? lost()
        }
        let patience = ResponseDeadline.forMethod(M.self)
        let deadline = ContinuousClock.now + patience
        var unanswered: AgentError?
        while true {
            let line: [UInt8]
            do { line = try socket.readLine(deadline: deadline) } catch {
                switch error {
                case .closed: throw lost()
                case .timedOut:
                    throw AgentError(.timeout, "the agent at \(path) did not answer \(M.name) within \(patience.components.seconds) s; it may be stuck: restart it")
                }
            }
            let message: Incoming
            do { message = try JSONDecoder().decode(Incoming.self, from: Data(line)) } catch {
                throw AgentError(.internal, "the agent sent a line that is not a JSON-RPC message")
            }
            if let name = message.method {
                guard name == ProgressParams.method, let params = message.params,
                      let progress = try? params.decode(as: ProgressParams.self), progress.id == id else { continue }
                if let failure = await answer(progress, interaction: interaction) { unanswered = failure }
                continue
            }
            // An error with no id is about the connection, not one request
            // (too many connections, a line the agent could not read): ours.
            if message.id == nil, let error = message.error { throw AgentError(rpcError: error) }
            guard message.id == id else { continue }
            if let error = message.error {
                let refusal = AgentError(rpcError: error)
                // The agent stopped because we could not answer its question:
                // why we could not says more than its "cancelled".
                if refusal.kind == .cancelled, let unanswered { throw unanswered }
                throw refusal
            }
            do { return try JSONDecoder().decode(TypedResult<M.Result>.self, from: Data(line)).result } catch {
                throw AgentError(.internal, "the agent's answer to \(M.name) does not decode: \(error)")
            }
        }
    }

    /// Answers one progress notification; a question the interaction could
    /// not answer is cancelled, and why is returned.
    nonisolated(nonsending)
    private func answer(_ progress: ProgressParams, interaction: any UserInteraction) async -> AgentError? {
        switch progress.stage {
        case .processing: interaction.progress(.processing)
        case .touch: interaction.progress(.touch)
        case .tap: interaction.progress(.tap)
        case .pin:
            do {
                let pin = try await interaction.pin(progress.pin ?? PINRequest(what: "PIN", reason: "The agent needs a PIN."))
                send(ControlMethod.pin, PINAnswerParams(id: progress.id, pin: pin))
            } catch {
                return cancel(progress.id, because: error)
            }
        case .choose:
            do {
                let index = try await interaction.chooseAccount(progress.accounts ?? [])
                send(ControlMethod.choose, ChooseAnswerParams(id: progress.id, index: index))
            } catch {
                return cancel(progress.id, because: error)
            }
        case .confirm:
            // No question to show is no yes.
            guard let request = progress.confirmation else {
                send(ControlMethod.confirm, ConfirmAnswerParams(id: progress.id, allowed: false))
                return nil
            }
            do {
                let allowed = try await interaction.confirm(request)
                send(ControlMethod.confirm, ConfirmAnswerParams(id: progress.id, allowed: allowed))
            } catch {
                return cancel(progress.id, because: error)
            }
        }
        return nil
    }

    private func cancel(_ id: RPCID, because error: any Error) -> AgentError {
        send(ControlMethod.cancel, CancelParams(id: id))
        return error as? AgentError ?? AgentError(.cancelled, "\(error)")
    }

    private func send<P: Encodable>(_ method: String, _ params: P) {
        guard let value = try? JSONValue(encoding: params),
              let line = try? JSONEncoder().encode(RPCNotification(method: method, params: value)) else { return }
        _ = socket.write(Array(line) + [UInt8(ascii: "\n")], deadline: .now + Self.writeTimeout)
    }

    /// An error line with id null the agent already sent, if any (read without waiting).
    private func connectionError() -> AgentError? {
        guard let line = try? socket.readLine(deadline: .now),
              let message = try? JSONDecoder().decode(Incoming.self, from: Data(line)),
              message.id == nil, let error = message.error else { return nil }
        return AgentError(rpcError: error)
    }

    private func lost() -> AgentError {
        AgentError(.internal, "the agent at \(path) closed the connection")
    }

    /// Any line from the agent: a response or a notification.
    private struct Incoming: Decodable {
        var id: RPCID?
        var method: String?
        var params: JSONValue?
        var error: RPCErrorObject?
        // The result is read by TypedResult, once the id says it is ours.
    }
}

/// A request whose params are encoded straight from their type: the same
/// JSON-RPC line as `RPCRequest`, without turning the params into a
/// `JSONValue` and back first (a tenth of a `passkey token get`'s CPU).
/// TypedResult does the same for the answer.
private struct TypedRequest<Params: Encodable>: Encodable {
    var jsonrpc = "2.0"
    var id: RPCID
    var method: String
    var params: Params
}

/// A response's result decoded straight into its type (the line is read a
/// second time, which costs less than building a `JSONValue` of the result
/// and re-encoding it). An absent result reads as `null`, as it always did.
private struct TypedResult<Result: Decodable>: Decodable {
    var result: Result

    private enum CodingKeys: String, CodingKey { case result }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        result = container.contains(.result)
            ? try container.decode(Result.self, forKey: .result)
            : try JSONValue.null.decode(as: Result.self)
    }
}
