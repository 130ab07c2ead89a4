import AgentCore
import AgentProtocol
import AgentRuntime
import DesktopBus
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The agent process around the server: signals, the idle exit of a
/// socket-activated agent, and a clean exit.
public struct AgentDaemon: Sendable {
    public let core: AgentCore
    public let socket: ListeningSocket
    public let logger: Logger
    private let server: AgentServer

    public init(core: AgentCore, socket: ListeningSocket, limits: AgentServer.Limits, logger: Logger) {
        self.core = core
        self.socket = socket
        self.logger = logger
        server = AgentServer(core: core, socket: socket, limits: limits, logger: logger)
    }

    /// SIGTERM and SIGINT stop the agent; SIGHUP locks it and re-reads
    /// config.toml (as gpg-agent does).
    public func handle(signal number: Int32) {
        switch number {
        case SIGHUP:
            logger.info("SIGHUP: locking and reading config.toml again")
            core.services.lockEverything(reason: "SIGHUP")
            report(core.services.reloadSettings(force: true))
        default:
            logger.info("\(number == SIGTERM ? "SIGTERM" : "SIGINT"): shutting down")
            server.shutdown()
        }
    }

    /// How often config.toml is checked for changes (one `stat`), and freed
    /// memory handed back when no client is connected.
    static let configCheckInterval = Duration.seconds(2)

    /// Logs what in config.toml is ignored or broken, each with its line.
    public func report(_ outcome: LiveSettings.Outcome) {
        switch outcome {
        case .unchanged: return
        case .reloaded(let warnings):
            logger.info("read \(core.services.config.path)")
            for warning in warnings { logger.warning("\(core.services.config.path) \(warning.description)") }
        case .kept(let error):
            logger.error("\(error.description); the settings read before stay in force")
        }
    }

    /// Serves until SIGTERM or SIGINT (or, when socket-activated, until idle
    /// for the idle timeout in force with no client connected); then returns.
    public func run() async {
        for problem in core.services.config.problems { logger.warning("\(problem)") }
        Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.configCheckInterval)
                report(core.services.reloadSettings(force: false))
                server.returnFreedMemory()
            }
        }
        if !socket.ownsPath {
            // systemd starts the agent again on the next connection. The
            // timeout is the vault's (flag, config.toml as it is now, or the
            // default; 0: never), so the unit needs no flag of its own.
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    let seconds = core.services.idleTimeoutInForce.seconds
                    guard seconds > 0 else { continue }
                    let state = server.idleState
                    if state.connections == 0, core.services.requestsInFlight == 0, state.idleFor >= .seconds(seconds) {
                        logger.info("idle for \(seconds) s with no client: exiting")
                        server.shutdown()
                        return
                    }
                }
            }
        }
        // Links opened on the desktop arrive over the session bus, when there is one.
        DesktopBus.start(core: core, logger: logger)
        do {
            try await server.run()
        } catch {
            logger.error("the server failed: \(error)")
        }
    }
}
