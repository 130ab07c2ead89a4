import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

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

    public static func start(expectedState: String, port: Int = 0) async throws(OpenIDError) -> CallbackListener {
        guard (0...65535).contains(port) else { throw .listener("port \(port) is not 0 to 65535") }
        let inbox = CallbackInbox(expectedState: expectedState)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in inbox.accept(channel) }
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
        var children: [ObjectIdentifier: any Channel] = [:]
    }
    private let state = Mutex(State())

    /// Connections open at once; more are closed at once (a local process flooding the port).
    static let maximumConnections = 32
    /// A connection that has not sent a whole request by then is closed.
    static let connectionDeadline = TimeAmount.seconds(10)

    init(expectedState: String) { self.expectedState = expectedState }

    func onAccepted(_ action: @escaping @Sendable () -> Void) {
        let acceptedAlready = state.withLock { state in
            state.onAccepted = action
            return state.accepted != nil
        }
        if acceptedAlready { action() }
    }

    /// A new connection: counted, given a deadline, and an HTTP/1 pipeline.
    func accept(_ channel: any Channel) -> EventLoopFuture<Void> {
        let key = ObjectIdentifier(channel)
        let admitted = state.withLock { state in
            guard !state.closed, state.children.count < Self.maximumConnections else { return false }
            state.children[key] = channel
            return true
        }
        guard admitted else { return channel.close() }
        channel.closeFuture.whenComplete { _ in self.state.withLock { _ = $0.children.removeValue(forKey: key) } }
        let deadline = channel.eventLoop.scheduleTask(in: Self.connectionDeadline) { channel.close(promise: nil) }
        channel.closeFuture.whenComplete { _ in deadline.cancel() }
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
            try channel.pipeline.syncOperations.addHandler(CallbackHandler(inbox: self))
        }
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
            return (waiter, Array(state.children.values))
        }
        waiter?.resume(throwing: OpenIDError.cancelled)
        for child in children { child.close(promise: nil) }
    }
}
