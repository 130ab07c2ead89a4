import NIOCore
import NIOHTTP1
import NIOPosix
import Locking

/// The RFC 8252 §7.3 loopback redirect listener of a browser login.
///
/// Bound to 127.0.0.1 only (never every interface, as oidc-agent and aws
/// do), on an ephemeral port unless one is given (for `ssh -L`). Before it
/// renders anything it checks, in this order, that the request is `GET
/// /callback`, that `Host` is exactly `127.0.0.1:PORT` (a page of a DNS-
/// rebound name reaching this port sends its own name) and that `state` is
/// this login's. A request failing any of them gets the same 400 page, which
/// echoes nothing, and the listener keeps waiting. The first good callback
/// gets a short page — success, or the provider's refusal by its RFC 6749
/// error code — with no token data and no code, and the listener closes: a
/// second callback finds nothing listening.
///
/// Another local user can connect to the port too. A connection must send
/// its whole request within `requestDeadline` (2 s; a callback is one short
/// GET a browser sends at once), and when all 32 slots are taken a new
/// connection evicts the oldest one that has not yet sent a whole request,
/// rather than being refused: half-sent requests cannot keep the browser's
/// callback out.
public final class CallbackListener: Sendable {
    public let port: Int
    private let channel: any Channel
    private let inbox: CallbackInbox

    /// "http://127.0.0.1:PORT/callback"
    public var redirectURI: String { "http://127.0.0.1:\(port)/callback" }

    private init(port: Int, channel: any Channel, inbox: CallbackInbox) {
        self.port = port
        self.channel = channel
        self.inbox = inbox
    }

    /// `requestDeadline`: how long a connection may take to send its whole
    /// request (the default in use; tests give another).
    public static func start(expectedState: String, port: Int = 0,
                             requestDeadline: Duration = .seconds(2)) async throws(OpenIDError) -> CallbackListener {
        guard (0...65535).contains(port) else { throw .listener("port \(port) is not 0 to 65535") }
        let inbox = CallbackInbox(expectedState: expectedState, requestDeadline: requestDeadline)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptOrder(inbox: inbox))
                }
            }
            .childChannelInitializer { channel in inbox.pipeline(for: channel) }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: "127.0.0.1", port: port).get()
        } catch {
            throw .listener("cannot listen on 127.0.0.1:\(port): \(error)")
        }
        guard let bound = channel.localAddress?.port else {
            channel.close(promise: nil)
            throw .listener("the listening socket has no port")
        }
        let listener = CallbackListener(port: bound, channel: channel, inbox: inbox)
        inbox.onAccepted { [weak listener] in listener?.close() }
        return listener
    }

    /// A listener nobody holds any more stops listening.
    deinit { close() }

    /// Completes when the listening socket is closed — by `close()`, a
    /// cancelled wait, the accepted callback, or deinit — after which a
    /// connection to the port is refused. (For tests: an event to await
    /// instead of polling the port.)
    package var listeningClosed: EventLoopFuture<Void> { channel.closeFuture }

    /// The accepted callback's full URL (`http://127.0.0.1:PORT/callback?…`),
    /// once. Cancelling the waiting task closes the listener.
    public func callback() async throws -> String {
        try await withTaskCancellationHandler {
            try await inbox.next()
        } onCancel: {
            close()
        }
    }

    /// Stops listening and drops open connections; a waiting `callback()` throws `.cancelled`.
    public func close() {
        channel.close(promise: nil)
        inbox.close()
    }
}

/// What the listener's connections share: the expected state, the one
/// accepted callback, and whoever waits for it.
final class CallbackInbox: Sendable {
    let expectedState: String
    private struct State {
        var accepted: String?
        var taken = false
        var closed = false
        var waiter: CheckedContinuation<String, any Error>?
        var onAccepted: (@Sendable () -> Void)?
        var children: [ObjectIdentifier: Child] = [:]
        var arrivals: UInt64 = 0
    }
    /// One open connection: when it came (for eviction, oldest first) and
    /// whether its whole request has arrived (then it is answered and closes).
    private struct Child {
        var channel: any Channel
        var arrival: UInt64
        var requestComplete = false
    }
    private let state = Locked(State())

    /// Connections open at once (a local process flooding the port): a new
    /// one beyond it evicts the oldest that has not sent a whole request.
    static let maximumConnections = 32
    /// A connection that has not sent a whole request by then is closed.
    let requestDeadline: TimeAmount

    init(expectedState: String, requestDeadline: Duration) {
        self.expectedState = expectedState
        let (seconds, attoseconds) = requestDeadline.components
        // Saturating: a deadline is at most a day, however it was written.
        let clamped = min(max(seconds, 0), 86_400)
        self.requestDeadline = .nanoseconds(clamped * 1_000_000_000 + (clamped < 86_400 ? max(attoseconds, 0) / 1_000_000_000 : 0))
    }

    func onAccepted(_ action: @escaping @Sendable () -> Void) {
        let acceptedAlready = state.withLock { state in
            state.onAccepted = action
            return state.accepted != nil
        }
        if acceptedAlready { action() }
    }

    /// A new connection, in the order the listening socket accepted them:
    /// counted (evicting the oldest unfinished one when all slots are
    /// taken) and given a deadline. False when the listener is closed or
    /// every slot holds a request being answered: the caller closes it.
    func admit(_ channel: any Channel) -> Bool {
        let key = ObjectIdentifier(channel)
        let (admitted, evicted) = state.withLock { state -> (Bool, (any Channel)?) in
            guard !state.closed else { return (false, nil) }
            var evicted: (any Channel)?
            if state.children.count >= Self.maximumConnections {
                // All slots full: the oldest connection still sending its request
                // goes. When every one has sent it (each is being answered and
                // closes at once), the newest waits for none and is refused.
                guard let oldest = state.children.filter({ !$0.value.requestComplete })
                    .min(by: { $0.value.arrival < $1.value.arrival }) else { return (false, nil) }
                evicted = state.children.removeValue(forKey: oldest.key)?.channel
            }
            state.arrivals &+= 1
            state.children[key] = Child(channel: channel, arrival: state.arrivals)
            return (true, evicted)
        }
        evicted?.close(promise: nil)
        guard admitted else { return false }
        channel.closeFuture.whenComplete { _ in self.state.withLock { _ = $0.children.removeValue(forKey: key) } }
        let deadline = channel.eventLoop.scheduleTask(in: requestDeadline) {
            let complete = self.state.withLock { $0.children[key]?.requestComplete ?? true }
            if !complete { channel.close(promise: nil) }
        }
        channel.closeFuture.whenComplete { _ in deadline.cancel() }
        return true
    }

    /// An admitted connection's HTTP/1 pipeline, set up on its own event loop.
    func pipeline(for channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
            try channel.pipeline.syncOperations.addHandler(CallbackHandler(inbox: self))
        }
    }

    /// The whole request of `channel` has arrived: it is answered now, and no longer evictable.
    func requestArrived(on channel: any Channel) {
        state.withLock { $0.children[ObjectIdentifier(channel)]?.requestComplete = true }
    }

    /// The listener's verdict on one request: a page, and whether it was the callback.
    func judge(_ head: HTTPRequestHead, port: Int?) -> CallbackPage {
        guard head.method == .GET, let port else { return .badRequest }
        let hosts = head.headers["Host"]
        guard hosts.count == 1, hosts[0] == "127.0.0.1:\(port)" else { return .badRequest }
        let path = head.uri.prefix { $0 != "?" && $0 != "#" }
        guard path == "/callback", let parameters = try? RedirectParameters(head.uri),
              parameters.single("state").value == expectedState else { return .badRequest }
        let url = "http://127.0.0.1:\(port)" + head.uri
        let (first, waiter) = state.withLock { state -> (Bool, CheckedContinuation<String, any Error>?) in
            guard state.accepted == nil, !state.closed else { return (false, nil) }
            state.accepted = url
            let waiter = state.waiter
            state.waiter = nil
            if waiter != nil { state.taken = true }
            return (true, waiter)
        }
        guard first else { return .badRequest }
        waiter?.resume(returning: url)
        if let code = parameters.single("error").value { return .refused(code) }
        return .success
    }

    /// Called once the accepted callback's page is written: the listener closes.
    func finished() {
        let action = state.withLock { $0.onAccepted }
        action?()
    }

    func next() async throws -> String {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            let outcome = state.withLock { state -> Result<String, any Error>? in
                if let accepted = state.accepted, !state.taken {
                    state.taken = true
                    return .success(accepted)
                }
                if state.closed || state.taken || state.waiter != nil { return .failure(OpenIDError.cancelled) }
                state.waiter = continuation
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    func close() {
        let (waiter, children) = state.withLock { state in
            state.closed = true
            let waiter = state.waiter
            state.waiter = nil
            return (waiter, state.children.values.map(\.channel))
        }
        waiter?.resume(throwing: OpenIDError.cancelled)
        for child in children { child.close(promise: nil) }
    }
}

/// Admits each connection on the listening channel's event loop, as the
/// socket accepts it, before NIO hands it to an event loop of its own.
/// Counting there makes "oldest" the accept order: the connections' own
/// set-up runs on two loops, in whatever order they get to it, and a loop
/// busy elsewhere would let later connections count as older.
private final class AcceptOrder: ChannelInboundHandler, Sendable {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel
    let inbox: CallbackInbox

    init(inbox: CallbackInbox) { self.inbox = inbox }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let child = unwrapInboundIn(data)
        guard inbox.admit(child) else {
            child.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }
}
