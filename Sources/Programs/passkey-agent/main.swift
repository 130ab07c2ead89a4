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

        Without --foreground the agent goes to the background, prints the lines that \
        export PASSKEY_AGENT_SOCK and PASSKEY_AGENT_PID (like ssh-agent: \
        eval "$(passkey-agent)"), and logs to $XDG_STATE_HOME/passkey-agent/agent.log. \
        eval "$(passkey-agent -k)" stops it again.

        Settings not given here come from config.toml ([agent] idle-timeout), \
        else their defaults; `passkey status` shows each and where it came from.
        """,
        version: BuildInfo.versionLine(program: "passkey-agent"))

    @Flag(name: .long, help: "Stay in the foreground and log to stderr (for systemd and journald).")
    var foreground = false

    @Flag(name: .customShort("k"), help: "Stop the agent $PASSKEY_AGENT_PID names (if it is your passkey-agent) and print the lines that unset PASSKEY_AGENT_SOCK and PASSKEY_AGENT_PID.")
    var kill = false

    @Flag(name: .customShort("s"), help: "Print Bourne shell commands (the default unless $SHELL ends in csh).")
    var bourneShell = false

    @Flag(name: .customShort("c"), help: "Print C shell commands (the default when $SHELL ends in csh).")
    var cShell = false

    @Option(name: .long, help: "Listen on this socket path instead of the default.")
    var socket: String?

    // The options below have no property defaults: a value given is told
    // from the default, so `passkey status` can say which decided.
    @Option(name: .long, help: ArgumentHelp(
        "Seconds without activity after which the vault locks; a socket-activated agent with no client also exits. Overrides [agent] idle-timeout of config.toml (default 900; 0: never).",
        valueName: "seconds"))
    var idleTimeout: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Connections served at once; past it a client is told too_many_connections (the open-file limit may lower it; default \(Defaults.maxConnections)).",
        valueName: "count"))
    var maxConnections: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Seconds a request line may take from its first byte to its newline; a slower client is disconnected (default \(Defaults.lineTimeout)).",
        valueName: "seconds"))
    var lineTimeout: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Seconds a request may run (a touch, a PIN, a token refresh) before it is stopped and answers timeout; at most the default, \(Defaults.requestTimeout), which passkey's own wait allows for.",
        valueName: "seconds"))
    var requestTimeout: Int?

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error (default \(Defaults.logLevel)).")
    var logLevel: String?

    enum Defaults {
        static let maxConnections = AgentServer.Limits().maxConnections
        static let lineTimeout = Int(AgentServer.Limits().lineTimeout.components.seconds)
        static let requestTimeout = Int(AgentServer.Limits().requestTimeout.components.seconds)
        static let logLevel = "info"
    }

    /// Ten years: longer is a typo, and a timer that far out is "never" anyway.
    static let maxIdleTimeout = 10 * 365 * 24 * 3600

    func validate() throws {
        if cShell && bourneShell { throw ValidationError("-c and -s choose one shell syntax; give one of them") }
        if let lineTimeout, !(1...3600).contains(lineTimeout) {
            throw ValidationError("--line-timeout takes 1 to 3600 seconds, not \(lineTimeout)")
        }
        if let requestTimeout, !(1...Defaults.requestTimeout).contains(requestTimeout) {
            throw ValidationError("--request-timeout takes 1 to \(Defaults.requestTimeout) seconds, not \(requestTimeout)")
        }
        if let maxConnections, !(1...65_536).contains(maxConnections) {
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
let syntax = ShellSyntax.chosen(cShell: options.cShell, bourne: options.bourneShell, shell: environment["SHELL"])
if options.kill { StopAgent.run(environment: environment, syntax: syntax) }

func fail(_ message: String) -> Never {
    StandardError.write("passkey-agent: \(message)\n")
    exit(1)
}

var requested = AgentServer.Limits()
requested.maxConnections = options.maxConnections ?? AgentOptions.Defaults.maxConnections
requested.lineTimeout = .seconds(options.lineTimeout ?? AgentOptions.Defaults.lineTimeout)
requested.requestTimeout = .seconds(options.requestTimeout ?? AgentOptions.Defaults.requestTimeout)
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
    // The lines are eval'd by a shell: a path that one line cannot hold is refused, not printed.
    if listening.path.contains(where: { $0.isNewline }) {
        listening.removeFile()
        fail("the socket path holds a line break, which the shell lines cannot carry; choose another with --socket")
    }
    let logPath = AgentPaths(environment: environment).xdg.stateHome + "/passkey-agent"
    Background.detach(announcing: listening.path, logDirectory: logPath, syntax: syntax)
}

LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = Logger.Level(rawValue: options.logLevel ?? AgentOptions.Defaults.logLevel) ?? .info
    return handler
}
let logger = Logger(label: "passkey-agent")

let core: AgentCore
do { core = try AgentCore(environment: environment, runningAsAgent: true) } catch {
    listening.removeFile()
    fail(error.message)
}
core.services.overrideVaultIdleTimeout(seconds: options.idleTimeout)
// What only the command line sets, in force after the open-file limit had its say.
core.services.recordCommandLine([
    ("--max-connections", String(limits.maxConnections), options.maxConnections != nil),
    ("--line-timeout", String(limits.lineTimeout.components.seconds), options.lineTimeout != nil),
    ("--request-timeout", String(limits.requestTimeout.components.seconds), options.requestTimeout != nil),
    ("--log-level", options.logLevel ?? AgentOptions.Defaults.logLevel, options.logLevel != nil),
])

let daemon = AgentDaemon(core: core, socket: listening, limits: limits, logger: logger)
Task.detached {
    await daemon.run()
    exit(0)
}
// The main thread's only job from here on: receive SIGTERM, SIGINT, SIGHUP.
SignalWaiter.wait { daemon.handle(signal: $0) }
