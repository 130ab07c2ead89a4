import AgentCore
import AgentProtocol
import AgentRuntime
import FoundationEssentials
import Interaction
import Logging
import NIOCore

/// Serves one client: reads request lines, answers quick methods at once,
/// runs the others as tasks (those that wait on no person one at a time,
/// see `ConnectionState`; the others many at a time), routes `$/cancel`, `$/pin`
/// and `$/choose`, and stops everything the client started when it hangs up.
final class ConnectionHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    private let core: AgentCore
    private let limits: AgentServer.Limits
    private let logger: Logger
    private let peer: PeerCredentials
    private var state: ConnectionState?
    private var unwritableSince: NIODeadline?
    /// Reading is paused because the client has its fill of requests in
    /// flight, all of which end by themselves (see `pauseIfAtLimit`).
    private var pausedAtLimit = false
    /// Lines that arrived in the same read as the one that reached the limit:
    /// served in order once a request ends (at most one read's worth).
    private var deferredLines: [Data] = []
    /// Set when the connection came through a forwarding socket (ForwardPolicy).
    private let forward: ForwardPolicy?
    private let forwards: ForwardRegistry?

    init(core: AgentCore, limits: AgentServer.Limits, logger: Logger, peer: PeerCredentials,
         forward: ForwardPolicy? = nil, forwards: ForwardRegistry? = nil) {
        self.core = core
        self.limits = limits
        self.logger = logger
        self.peer = peer
        self.forward = forward
        self.forwards = forwards
    }

    func handlerAdded(context: ChannelHandlerContext) {
        state = ConnectionState(channel: context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let state else { return }
        let line = unwrapInboundIn(data)
        if line.readableBytes == 0 { return }
        if pausedAtLimit {
            deferredLines.append(Data(line.readableBytesView))
            return
        }
        handle(Data(line.readableBytesView), state: state)
        pauseIfAtLimit(context.channel, state: state)
    }

    /// A client with `maxRequestsPerConnection` requests in flight, none of
    /// which may wait for a person, is not read until one of them ends: they
    /// end by themselves, and reading on would only parse lines to refuse
    /// them — a client that pipelines thousands of lines would cost the I/O
    /// threads more than its requests cost the pool. Its next lines wait in
    /// the kernel (its writes block), or here when they came in the same read,
    /// and are served in order, not refused. With a
    /// request that may wait for a person among them, the connection is read
    /// on, so `$/cancel`, `$/pin` and `$/choose` always get through.
    private func pauseIfAtLimit(_ channel: any Channel, state: ConnectionState) {
        guard !pausedAtLimit, state.requestCount >= limits.maxRequestsPerConnection, state.waitsOnNoPerson else { return }
        pausedAtLimit = true
        updateReading(channel)
    }

    /// Called on any thread when a request of this connection has answered.
    private func requestEnded(_ channel: any Channel, state: ConnectionState) {
        channel.eventLoop.execute { [self] in
            guard pausedAtLimit, state.requestCount < limits.maxRequestsPerConnection else { return }
            pausedAtLimit = false
            while !pausedAtLimit, !deferredLines.isEmpty {
                handle(deferredLines.removeFirst(), state: state)
                pauseIfAtLimit(channel, state: state)
            }
            if !pausedAtLimit { updateReading(channel) }
        }
    }

    /// Reads while the client takes its answers and is not paused at its limit.
    private func updateReading(_ channel: any Channel) {
        let reading = channel.isWritable && !pausedAtLimit
        channel.setOption(ChannelOptions.autoRead, value: reading).whenFailure { _ in }
        if reading { channel.read() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        deferredLines.removeAll()
        state?.cancelAll()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is LineFramer.LineTooLong {
            let failure = AgentError(.requestTooLarge, "a line is longer than \(limits.maxLineBytes) bytes; the connection is closed")
            state?.respond(RPCResponse(id: nil, error: failure.rpcError))
            logger.warning("closing a connection that sent an over-long line", metadata: ["pid": "\(peer.pid)"])
        }
        context.close(promise: nil)
    }

    /// A client that stops reading must not make the agent hold its answers
    /// forever: after `stalledWriteTimeout` of a full write buffer it is dropped.
    /// Meanwhile the agent reads no more of its requests (each would add an
    /// answer to the queue), so what it holds for the client stays near the
    /// write buffer's high-water mark instead of growing with every line sent.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        updateReading(context.channel)
        if context.channel.isWritable {
            unwritableSince = nil
        } else {
            unwritableSince = .now()
            let channel = context.channel
            let timeout = limits.stalledWriteTimeout
            context.eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000)) { [self] in
                if !channel.isWritable, let since = unwritableSince, .now() - since >= .seconds(1) {
                    logger.warning("closing a connection that stopped reading", metadata: ["pid": "\(peer.pid)"])
                    channel.close(promise: nil)
                }
            }
        }
        context.fireChannelWritabilityChanged()
    }

    private func handle(_ line: Data, state: ConnectionState) {
        // `token.get` of a token kept in memory, in its plain form: read by
        // hand and answered at once, before any JSONDecoder. Not through a
        // forward (its requests are confirmed first, in a task), and not
        // ahead of this client's earlier requests.
        if forward == nil, state.holdsNoTurn, line.count <= TokenGetWire.maxRequestBytes,
           let answer = core.methods.dispatchFast(line: Array(line)) {
            state.respond(id: answer.id, encodedResult: answer.result)
            return
        }
        let request: RPCRequest
        switch RequestParser.parse(line) {
        case .request(let parsed): request = parsed
        case .failure(let id, let error):
            state.respond(RPCResponse(id: id, error: error.rpcError))
            return
        }
        if request.method.hasPrefix("$/") {
            control(request, state: state)
            return
        }
        // A request without an id is a notification: JSON-RPC gives it no answer.
        guard let id = request.id else { return }
        if let forward {
            do throws(AgentError) { try forward.check(method: request.method, params: request.params) } catch {
                logger.notice("forwarded request refused", metadata: forwardMetadata(request, forward))
                state.respond(RPCResponse(id: id, error: error.rpcError))
                return
            }
        } else if let forwards, let answer = forwards.dispatch(method: request.method, params: request.params) {
            switch answer {
            case .success(let result): state.respond(RPCResponse(id: id, result: result))
            case .failure(let error): state.respond(RPCResponse(id: id, error: error.rpcError))
            }
            return
        }
        do {
            if let forward { logger.info("forwarded request", metadata: forwardMetadata(request, forward)) }
            if let result = try core.methods.dispatchQuick(method: request.method, params: request.params) {
                state.respond(id: id, encodedResult: result)
                return
            }
        } catch {
            state.respond(RPCResponse(id: id, error: error.rpcError))
            return
        }
        guard state.requestCount < limits.maxRequestsPerConnection else {
            let error = AgentError(.tooManyConnections, "more than \(limits.maxRequestsPerConnection) requests in flight on one connection")
            state.respond(RPCResponse(id: id, error: error.rpcError))
            return
        }
        start(request, id: id, state: state)
    }

    private func start(_ request: RPCRequest, id: RPCID, state: ConnectionState) {
        let core = self.core, limits = self.limits, logger = self.logger, forward = self.forward
        let interaction = ServerInteraction(id: id, connection: state, answerTimeout: limits.answerTimeout)
        let accepted = state.begin(id, takesTurns: core.methods.answerWait(method: request.method) == .machine) {
            Task {
                let started = ContinuousClock.now
                let deadline = RequestDeadline(limit: limits.requestTimeout, on: state.channel.eventLoop) { state.cancel(id) }
                var outcome: Result<JSONValue, AgentError>
                do throws(AgentError) {
                    // Asked at the agent's own desktop: the far end of a forward cannot answer for itself.
                    try await forward?.confirm(method: request.method, params: request.params, interaction: DesktopInteraction())
                    outcome = .success(try await core.methods.dispatch(method: request.method, params: request.params, interaction: interaction))
                } catch {
                    outcome = .failure(error)
                }
                if deadline.end() {
                    outcome = .failure(AgentError(.timeout, "the request took longer than \(limits.requestTimeout.components.seconds) s and was stopped"))
                }
                let response: RPCResponse
                switch outcome {
                case .success(let result): response = RPCResponse(id: id, result: result)
                case .failure(let error): response = RPCResponse(id: id, error: error.rpcError)
                }
                // On the connection's loop, the answer is written before the
                // turn passes: the next request's answer (a fast one, from the
                // vault's memory) cannot overtake it, and the count drops only
                // once the client can have seen the answer.
                state.channel.eventLoop.execute {
                    state.respond(response)
                    state.finish(id)
                    self.requestEnded(state.channel, state: state)
                }
                let kind: String
                if case .failure(let error) = outcome { kind = error.kind.rawValue } else { kind = "ok" }
                logger.info("request", metadata: ["method": "\(request.method)", "id": "\(id)", "outcome": "\(kind)",
                                                  "ms": "\((ContinuousClock.now - started).components.seconds * 1000 + (ContinuousClock.now - started).components.attoseconds / 1_000_000_000_000_000)"])
            }
        }
        if !accepted {
            let error = AgentError(.invalidRequest, "request id \(id) is already in flight on this connection")
            state.respond(RPCResponse(id: id, error: error.rpcError))
        }
    }

    /// What the log says of a forwarded request: the method and account, never a token.
    private func forwardMetadata(_ request: RPCRequest, _ forward: ForwardPolicy) -> Logger.Metadata {
        ["forward": "\(forward.id)", "method": "\(request.method)",
         "account": "\(request.params?["account"]?.string.map { DisplayText.plain($0) } ?? "-")", "pid": "\(peer.pid)"]
    }

    private func control(_ request: RPCRequest, state: ConnectionState) {
        switch request.method {
        case ControlMethod.cancel:
            if let params = try? request.params?.decode(as: CancelParams.self) { state.cancel(params.id) }
        case ControlMethod.pin:
            if let params = try? request.params?.decode(as: PINAnswerParams.self) { state.answer(params.id, .pin(params.pin)) }
        case ControlMethod.choose:
            if let params = try? request.params?.decode(as: ChooseAnswerParams.self) { state.answer(params.id, .choice(params.index)) }
        case ControlMethod.confirm:
            if let params = try? request.params?.decode(as: ConfirmAnswerParams.self) { state.answer(params.id, .confirmation(params.allowed)) }
        default:
            if let id = request.id {
                state.respond(RPCResponse(id: id, error: AgentError(.methodNotFound, "unknown method \(request.method)").rpcError))
            }
        }
    }
}
