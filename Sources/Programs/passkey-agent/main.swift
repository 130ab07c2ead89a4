import AgentCore
import AgentServer
import ArgumentParser
import BuildInfo
import Logging
import Settings
import StandardError

#if canImport(Glibc)
import Glibc
#endif

/// `passkey-agent`: the per-user agent. Everything before the fork below is
/// plain POSIX on one thread, so forking into the background is safe.
struct AgentOptions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey-agent",
        abstract: "The per-user passkey and token agent: serves `passkey` and other programs on a Unix socket.",
        discussion: """
        The socket is $PASSKEY_AGENT_SOCK, else $XDG_RUNTIME_DIR/passkey-agent/agent.sock \
        (directory 0700, socket 0600). Only your own user may connect. Under systemd \
        socket activation (passkey-agent.socket) the agent uses the socket it is given.

        Without --foreground the agent goes to the background, prints the line to \
        export PASSKEY_AGENT_SOCK (like ssh-agent), and logs to \
        $XDG_STATE_HOME/passkey-agent/agent.log.
        """,
        version: BuildInfo.versionLine(program: "passkey-agent"))

    @Flag(name: .long, help: "Stay in the foreground and log to stderr (for systemd and journald).")
    var foreground = false

    @Option(name: .long, help: "Listen on this socket path instead of the default.")
    var socket: String?

    @Option(name: .long, help: ArgumentHelp(
        "Seconds without activity after which the vault locks; a socket-activated agent with no client also exits.",
        valueName: "seconds"))
    var idleTimeout: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Connections served at once; past it a client is told too_many_connections (the open-file limit may lower it).",
        valueName: "count"))
    var maxConnections: Int = AgentServer.Limits().maxConnections

    @Option(name: .long, help: ArgumentHelp(
        "Seconds a request line may take from its first byte to its newline; a slower client is disconnected.",
        valueName: "seconds"))
    var lineTimeout: Int = Int(AgentServer.Limits().lineTimeout.components.seconds)

    @Option(name: .long, help: ArgumentHelp(
        "Seconds a request may run (a touch, a PIN, a token refresh) before it is stopped and answers timeout; at most the default, which passkey's own wait allows for.",
        valueName: "seconds"))
    var requestTimeout: Int = Int(AgentServer.Limits().requestTimeout.components.seconds)

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String = "info"

    /// Ten years: longer is a typo, and a timer that far out is "never" anyway.
    static let maxIdleTimeout = 10 * 365 * 24 * 3600

    func validate() throws {
        guard (1...3600).contains(lineTimeout) else {
            throw ValidationError("--line-timeout takes 1 to 3600 seconds, not \(lineTimeout)")
        }
        let longest = Int(AgentServer.Limits().requestTimeout.components.seconds)
        guard (1...longest).contains(requestTimeout) else {
            throw ValidationError("--request-timeout takes 1 to \(longest) seconds, not \(requestTimeout)")
        }
        guard (1...65_536).contains(maxConnections) else {
            throw ValidationError("--max-connections takes 1 to 65536, not \(maxConnections)")
        }
        if let idleTimeout, !(0...Self.maxIdleTimeout).contains(idleTimeout) {
            throw ValidationError("--idle-timeout takes 0 (never) to \(Self.maxIdleTimeout) seconds, not \(idleTimeout)")
        }
    }
}

SignalWaiter.blockHandledSignals()
let options = AgentOptions.parseOrExit()
let environment = ProcessEnvironment.snapshot()

func fail(_ message: String) -> Never {
    StandardError.write("passkey-agent: \(message)\n")
    exit(1)
}

var requested = AgentServer.Limits()
requested.maxConnections = options.maxConnections
requested.lineTimeout = .seconds(options.lineTimeout)
requested.requestTimeout = .seconds(options.requestTimeout)
let limits = requested.fitting(descriptorLimit: DescriptorLimit.raiseToHardLimit())

// The listening socket: systemd's, or our own (created before forking, so
// errors reach the terminal).
let listening: ListeningSocket
if let activated = SocketActivation.listeningDescriptor(environment: environment) {
    listening = .activated(descriptor: activated, path: SocketActivation.boundPath(of: activated) ?? "(socket-activated)")
} else {
    guard let path = options.socket ?? AgentPaths(environment: environment).socket else {
        fail(ListenError.noRuntimeDirectory.description)
    }
    do { listening = try ListeningSocket.create(at: path, backlog: limits.listenBacklog) } catch { fail(error.description) }
}

if !options.foreground {
    let logPath = AgentPaths(environment: environment).xdg.stateHome + "/passkey-agent"
    Background.detach(announcing: listening.path, logDirectory: logPath)
}

LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = Logger.Level(rawValue: options.logLevel) ?? .info
    return handler
}
let logger = Logger(label: "passkey-agent")

let core: AgentCore
do { core = try AgentCore(environment: environment, runningAsAgent: true) } catch {
    listening.removeFile()
    fail(error.message)
}
core.services.overrideVaultIdleTimeout(seconds: options.idleTimeout)

let daemon = AgentDaemon(core: core, socket: listening, limits: limits,
                         idleTimeout: options.idleTimeout.map { .seconds($0) }, logger: logger)
Task.detached {
    await daemon.run()
    exit(0)
}
// The main thread's only job from here on: receive SIGTERM, SIGINT, SIGHUP.
SignalWaiter.wait { daemon.handle(signal: $0) }
