import AgentCore
import AgentProtocol
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The agent process around the server: signals, the idle exit of a
/// socket-activated agent, and a clean exit.
public struct AgentDaemon: Sendable {
    public let core: AgentCore
    public let socket: ListeningSocket
    public let idleTimeout: Duration?
    public let logger: Logger
    private let server: AgentServer

    public init(core: AgentCore, socket: ListeningSocket, idleTimeout: Duration?, logger: Logger) {
        self.core = core
        self.socket = socket
        self.idleTimeout = idleTimeout
        self.logger = logger
        server = AgentServer(core: core, socket: socket, logger: logger)
    }

    /// SIGTERM and SIGINT stop the agent; SIGHUP locks it.
    public func handle(signal number: Int32) {
        switch number {
        case SIGHUP:
            logger.info("SIGHUP: locking")
            core.services.lockEverything(reason: "SIGHUP")
        default:
            logger.info("\(number == SIGTERM ? "SIGTERM" : "SIGINT"): shutting down")
            server.shutdown()
        }
    }

    /// Serves until SIGTERM or SIGINT (or, when socket-activated, until idle
    /// for `idleTimeout` with no client connected); then returns.
    public func run() async {
        if let idleTimeout, !socket.ownsPath {
            // systemd starts the agent again on the next connection.
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    let state = server.idleState
                    if state.connections == 0, core.services.requestsInFlight == 0, state.idleFor >= idleTimeout {
                        logger.info("idle for \(idleTimeout.components.seconds) s with no client: exiting")
                        server.shutdown()
                        return
                    }
                }
            }
        }
        do {
            try await server.run()
        } catch {
            logger.error("the server failed: \(error)")
        }
    }
}
