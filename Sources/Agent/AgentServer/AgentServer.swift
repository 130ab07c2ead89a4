import AgentCore
import AgentProtocol
import CMalloc
import Locking
import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The agent's socket server: accepts connections on a listening socket it
/// was given, lets only the agent's own user in, and serves the protocol.
public final class AgentServer: Sendable {
    /// Bounds that keep one client from starving the others.
    public struct Limits: Sendable {
        /// Past this, a connection gets one `too_many_connections` line and
        /// is closed. High enough that a burst of scripts (or the soak's 500
        /// misbehaving clients) leaves room for well-behaved ones; the agent
        /// raises its descriptor limit to fit (`fitting(descriptorLimit:)`).
        public var maxConnections = 1024
        public var maxLineBytes = 1 << 20
        /// A request line must end this long after its first byte.
        public var lineTimeout: Duration = .seconds(10)
        /// Requests one connection may have in flight. A client that pipelines
        /// and never reads costs at most this much work and the write buffer.
        public var maxRequestsPerConnection = 8
        /// Answers queued for a client before the agent stops reading its
        /// requests; answers are small, and 500 clients that never read must
        /// not cost 500 MiB. The kernel's send buffer is kept as small, so
        /// a client that never reads is noticed after a few answers, not hundreds.
        public var writeBuffer = WriteBufferWaterMark(low: 16 << 10, high: 64 << 10)
        public var socketSendBuffer: Int32 = 64 << 10
        public var requestTimeout: Duration = .seconds(300)
        /// How long a `pin`/`choose` question waits for its answer.
        public var answerTimeout: Duration = .seconds(120)
        public var stalledWriteTimeout: Duration = .seconds(10)

        public init() {}

        /// Connections waiting to be accepted, as many as may be served (the
        /// kernel caps it at somaxconn; under systemd, the socket unit's Backlog=).
        public var listenBacklog: Int32 { Int32(clamping: maxConnections) }

        /// These limits with at most as many connections as `descriptorLimit`
        /// allows, keeping 64 descriptors for devices, files and HTTP.
        public func fitting(descriptorLimit: Int) -> Limits {
            var limits = self
            limits.maxConnections = max(1, min(maxConnections, descriptorLimit - 64))
            return limits
        }
    }

    private let core: AgentCore
    private let socket: ListeningSocket
    private let limits: Limits
    private let logger: Logger
    private let connections = Atomic<Int>(0)
    /// The listening channel once bound; `stopping` remembers a shutdown asked for before that.
    private let serverChannel = Locked<(channel: (any Channel)?, stopping: Bool)>((nil, false))
    private let children = Locked<[ObjectIdentifier: any Channel]>([:])
    private let lastActivity = Locked(ContinuousClock.now)
    /// The most connections open at once since memory was last handed back.
    private let peakSinceTrim = Atomic<Int>(0)
    /// Set on a forwarding socket's server: every connection is held to it.
    private let forward: ForwardPolicy?
    /// The agent's own socket's forwards (`forward.*`); nil on a forwarding socket.
    private let forwards: ForwardRegistry?

    public init(core: AgentCore, socket: ListeningSocket, limits: Limits = Limits(), logger: Logger) {
        self.core = core
        self.socket = socket
        self.limits = limits
        self.logger = logger
        forward = nil
        let directory = String(socket.path[..<(socket.path.lastIndex(of: "/") ?? socket.path.startIndex)])
        forwards = ForwardRegistry(core: core, directory: directory.isEmpty ? "." : directory, limits: limits, logger: logger)
    }

    /// A forwarding socket's server (ForwardRegistry).
    init(core: AgentCore, socket: ListeningSocket, limits: Limits, logger: Logger, forward: ForwardPolicy) {
        self.core = core
        self.socket = socket
        self.limits = limits
        self.logger = logger
        self.forward = forward
        forwards = nil
    }

    /// Serves until `shutdown()`; then in-flight requests are cancelled (they
    /// answer `cancelled`), connections close, and the socket file is removed
    /// unless systemd owns it.
    public func run() async throws {
        // One event loop accepts and serves every connection: a connection's
        // first line is then read on the thread that accepted it, with no
        // hand-over to another loop (a wake-up of another thread per
        // connection, most of what a short request cost beside oidc-agent's,
        // docs/BENCHMARKS.md "peers"). Requests that wait run as tasks, off it.
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let bootstrap = ServerBootstrap(group: loop, childGroup: loop)
            .serverChannelOption(.backlog, value: limits.listenBacklog)  // bind-time only; ListeningSocket listens
            .childChannelOption(.writeBufferWaterMark, value: limits.writeBuffer)
            .childChannelOption(.socketOption(.so_sndbuf), value: SocketOptionValue(limits.socketSendBuffer))
            .childChannelInitializer { channel in self.initialize(channel) }
        let channel = try await bootstrap.withBoundSocket(socket.descriptor).get()
        let stopAtOnce = serverChannel.withLock { state in
            state.channel = channel
            return state.stopping
        }
        if stopAtOnce { channel.close(promise: nil) }
        logger.info("listening", metadata: ["socket": "\(socket.path)", "activated": "\(!socket.ownsPath)"])
        try await channel.closeFuture.get()
        let open = children.withLock { Array($0.values) }
        for child in open { try? await child.close() }
        forwards?.closeAll()
        socket.removeFile()
        logger.info(forward == nil ? "stopped" : "forward stopped")
    }

    /// Stops accepting and closes every connection (each cancels what it started).
    public func shutdown() {
        let channel = serverChannel.withLock { state in
            state.stopping = true
            return state.channel
        }
        channel?.close(promise: nil)
    }

    /// Connections open now, and time since the last one closed or opened.
    public var idleState: (connections: Int, idleFor: Duration) {
        (connections.load(ordering: .relaxed), ContinuousClock.now - lastActivity.withLock { $0 })
    }

    private func initialize(_ channel: any Channel) -> EventLoopFuture<Void> {
        PeerCredentials.of(channel).flatMap { peer in
            // Only the agent's own user may talk to it — whatever the file modes say.
            guard peer.uid == getuid() else {
                self.logger.warning("refused a connection from another user", metadata: ["uid": "\(peer.uid)", "pid": "\(peer.pid)"])
                return channel.close()
            }
            let count = self.connections.wrappingAdd(1, ordering: .relaxed).newValue
            self.peakSinceTrim.max(count, ordering: .relaxed)
            self.touch()
            let key = ObjectIdentifier(channel)
            self.children.withLock { $0[key] = channel }
            channel.closeFuture.whenComplete { _ in
                self.connections.subtract(1, ordering: .relaxed)
                self.children.withLock { _ = $0.removeValue(forKey: key) }
                self.touch()
            }
            guard count <= self.limits.maxConnections else {
                let error = AgentError(.tooManyConnections, "the agent already serves \(self.limits.maxConnections) connections; try again later")
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RefusalHandler(error: error))
                }
            }
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(LineDeadlineHandler(lineTimeout: self.limits.lineTimeout))
                try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder(maxLength: self.limits.maxLineBytes)))
                try channel.pipeline.syncOperations.addHandler(
                    ConnectionHandler(core: self.core, limits: self.limits, logger: self.logger, peer: peer,
                                      forward: self.forward, forwards: self.forwards))
            }
        }
    }

    private func touch() { lastActivity.withLock { $0 = .now } }

    /// Hands memory freed by closed connections back to the system: glibc
    /// keeps freed heap in its arenas, so after a burst (or 500 clients that
    /// never read) the agent would otherwise stay at its peak size. Done when
    /// the connections open have fallen to half their peak (by 32 or more)
    /// or to none; called by the daemon's periodic check, off the request path.
    public func returnFreedMemory() {
        let open = connections.load(ordering: .relaxed)
        let peak = peakSinceTrim.load(ordering: .relaxed)
        guard peak > open, open == 0 || (open <= peak / 2 && peak - open >= 32) else { return }
        peakSinceTrim.store(open, ordering: .relaxed)
        malloc_trim(0)
    }
}

import FoundationEssentials

/// One JSON message followed by a newline.
enum JSONEncoderLine {
    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        Array(try JSONEncoder().encode(value)) + [UInt8(ascii: "\n")]
    }
}
