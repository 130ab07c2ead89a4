import AgentProtocol
import DevServer
import HTTPTransport
import IDXDevServer
import OAuthDevServer
import PasskeyCLI
import Settings

#if canImport(Glibc)
import Glibc
#endif

/// The demo's one temporary world: its own home and XDG directories, the
/// devserver (every server it has) in this process, a passkey-agent of its
/// own, and what the chapters share (the vault, the login of chapter 3).
/// Chapters run `passkey` as a person would, against this agent only.
final class DemoWorld: @unchecked Sendable {
    let scratch: String
    let server: RunningDevServer
    let transport = HTTPTransport()
    /// `virtual` (the software authenticator) or the `--device` given.
    let device: String
    let pins: PINSource
    /// The key's PIN from --pin-stdin (nil: none given; the key asks, or has none).
    let keyPIN: String?
    /// What `passkey` and the agent run with.
    private(set) var environment: [String: String]
    private var agent: DemoProcess?
    private var runs = 0
    var vaultReady = false
    var loggedIn = false
    /// The access token `token get work` gave last (chapter 3 or its quiet stand-in).
    var lastAccessToken = ""
    /// The private pcscd and card, started for the chapters that use them (nil: not yet, or not installed).
    var pcsc: DemoPCSC?
    /// Why there is no card here (pcscd or vpcd missing), when the demo looked.
    var pcscMissing: String?

    /// The pinentry the demo answers with, as the person at the desktop: OK to every CONFIRM.
    var pinentryLog: String { scratch + "/pinentry.log" }
    /// Whether the demo answers pinentry (the software authenticator), or the person does (a real key).
    var demoAnswersPinentry: Bool { device == "virtual" && environment["PASSKEY_PINENTRY"] == scratch + "/pinentry" }

    init(scratch: String, device: String?, pins: PINSource, keyPIN: String? = nil) async throws(AgentError) {
        self.scratch = scratch
        self.device = device ?? "virtual"
        self.pins = pins
        self.keyPIN = keyPIN
        do {
            server = try await DevServer.start(DevServerConfiguration(
                rpIds: ["localhost"], origins: ["https://localhost"],
                // 120 s tokens: asking for 300 s of validity makes the agent refresh (chapter 3).
                oauth: OAuthConfiguration(accessTokenLifetime: .seconds(120)),
                idx: IDXConfiguration(users: [try IDXUserRegistration(username: "bob")]),
                logger: DevServer.standardErrorLogger(level: .error)))
        } catch {
            throw AgentError(.internal, "could not start the demo server: \(error)")
        }
        var environment = ProcessEnvironment.current
        // Not the person's agent, bus, browser or display: this world only.
        for key in ["PASSKEY_AGENT_SOCK", "LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "DBUS_SESSION_BUS_ADDRESS",
                    "DISPLAY", "WAYLAND_DISPLAY", "MIR_SOCKET", "BROWSER", "PASSKEY_PINENTRY", "PCSCLITE_CSOCK_NAME"] {
            environment[key] = nil
        }
        environment["HOME"] = scratch
        environment["XDG_RUNTIME_DIR"] = scratch + "/run"
        environment["XDG_DATA_HOME"] = scratch + "/data"
        environment["XDG_CONFIG_HOME"] = scratch + "/config"
        environment["XDG_STATE_HOME"] = scratch + "/state"
        // With the software authenticator the demo plays the person at pinentry too; with a
        // real key the person is there: their own pinentry asks for its PIN and confirmations.
        if device == nil {
            environment["PASSKEY_PINENTRY"] = scratch + "/pinentry"
        } else if let own = ProcessEnvironment.current["PASSKEY_PINENTRY"] {
            environment["PASSKEY_PINENTRY"] = own
        }
        self.environment = environment
        for directory in ["/run", "/data", "/config", "/config/passkey-agent", "/state", "/out"] {
            try DemoFiles.directory(scratch + directory)
        }
        try writePinentry()
        try writeConfig()
    }

    /// The devserver's origin, `http://127.0.0.1:PORT`.
    var origin: String { server.apiURL }

    /// config.toml: the authenticator the agent uses by default, and the
    /// devserver's Beyond-Identity-like application trusted for its RP ID (chapter 5).
    private func writeConfig() throws(AgentError) {
        try DemoFiles.write("""
            [device]
            default = "\(device)"

            [invoke.application.dev]
            issuer = "\(origin)/bi/v1/tenants/t1/realms/r1/applications/a1"
            rp-ids = ["bi.passkey.test"]

            """, to: scratch + "/config/passkey-agent/config.toml")
    }

    /// A pinentry speaking Assuan: OK to each SET… and to CONFIRM (the person
    /// agrees), every line logged so the demo can show what the person saw.
    private func writePinentry() throws(AgentError) {
        try DemoFiles.write("""
            #!/bin/sh
            echo "OK Pleased to meet you"
            while IFS= read -r line; do
              printf '%s\\n' "$line" >> '\(pinentryLog)'
              case "$line" in
                GETPIN*) echo 'ERR 83886179 Operation cancelled <Pinentry>' ;;
                BYE*) echo OK; exit 0 ;;
                *) echo OK ;;
              esac
            done

            """, to: scratch + "/pinentry", mode: 0o700)
    }

    /// Adds variables for every program started from now on (the agent included, if not yet started).
    func addEnvironment(_ extra: [String: String]) {
        environment.merge(extra) { _, new in new }
    }

    /// Starts the private pcscd and card when they are installed (before the
    /// agent, which must find them), else notes why not.
    func startCard() async throws(AgentError) {
        guard pcsc == nil, pcscMissing == nil else { return }
        if let missing = DemoPCSC.missing(environment: environment) {
            pcscMissing = missing
            return
        }
        let started = try await DemoPCSC(directory: scratch + "/pcsc", environment: environment)
        pcsc = started
        addEnvironment(started.environment)
        // pcscd sees a card at its next poll of the reader (about 400 ms).
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let list = try await passkey(["card", "list", "--json", "--no-agent"])
            if list.standardOutput.filter({ $0 != " " }).contains("\"cardPresent\":true") { return }
            try? await Task.sleep(for: .milliseconds(100))
        }
        throw AgentError(.noCard, "pcscd did not see the virtual card in \(DemoPCSC.reader) within 20 s")
    }

    /// Starts `passkey-agent --foreground` and waits until its socket answers;
    /// with --pin-stdin and the software authenticator, gives that key the PIN.
    func startAgent() async throws(AgentError) {
        guard agent == nil else { return }
        let started = try DemoProcess(try DemoFiles.sibling("passkey-agent"), ["--foreground"], environment: environment,
                                      files: scratch + "/out/agent")
        agent = started
        let socket = scratch + "/run/passkey-agent/agent.sock"
        try await started.waitUntil("the agent listens on \(socket)") { access(socket, F_OK) == 0 }
        if let keyPIN, device == "virtual" {
            try await require(["pin", "set", "--device", "virtual", "--pin-stdin"], input: keyPIN + "\n")
        }
    }

    /// `arguments` and `input` for a command that may touch the key: with a
    /// PIN from --pin-stdin, `--pin-stdin` and the PIN as standard input's
    /// last line (after a URL or password the command reads first).
    func withKeyPIN(_ arguments: [String], input: String? = nil) -> (arguments: [String], input: String?) {
        guard let keyPIN else { return (arguments, input) }
        return (arguments + ["--pin-stdin"], (input ?? "") + keyPIN + "\n")
    }

    /// `require`, for a command that may touch the key (`withKeyPIN`).
    @discardableResult
    func requireWithKey(_ arguments: [String], input: String? = nil) async throws(AgentError) -> DemoRun {
        let (arguments, input) = withKeyPIN(arguments, input: input)
        return try await require(arguments, input: input)
    }

    /// `passkey`, for a command that may touch the key (`withKeyPIN`).
    func passkeyWithKey(_ arguments: [String], input: String? = nil) async throws(AgentError) -> DemoRun {
        let (arguments, input) = withKeyPIN(arguments, input: input)
        return try await passkey(arguments, input: input)
    }

    /// Runs `passkey ARGUMENTS` to its end.
    func passkey(_ arguments: [String], input: String? = nil,
                 extraEnvironment: [String: String] = [:]) async throws(AgentError) -> DemoRun {
        let process = try start(arguments, input: input, extraEnvironment: extraEnvironment)
        let status = try await process.wait(what: "passkey \(arguments.first ?? "")")
        return DemoRun(arguments: arguments, status: status, standardOutput: process.standardOutput,
                       standardError: process.standardError)
    }

    /// Runs `passkey ARGUMENTS` and fails with its error unless it succeeds.
    @discardableResult
    func require(_ arguments: [String], input: String? = nil,
                 extraEnvironment: [String: String] = [:]) async throws(AgentError) -> DemoRun {
        let run = try await passkey(arguments, input: input, extraEnvironment: extraEnvironment)
        guard run.status == 0 else {
            throw AgentError(.internal, "`passkey \(arguments.joined(separator: " "))` failed (exit \(run.status)): \(run.standardError)")
        }
        return run
    }

    /// Starts `passkey ARGUMENTS` in the background (a login that waits for the browser).
    func start(_ arguments: [String], input: String? = nil,
               extraEnvironment: [String: String] = [:]) throws(AgentError) -> DemoProcess {
        runs += 1
        return try DemoProcess(try DemoFiles.sibling("passkey"), arguments,
                               environment: environment.merging(extraEnvironment) { _, new in new },
                               standardInput: input, files: scratch + "/out/passkey-\(runs)")
    }

    /// A `vault init --slot fido2` when no chapter made the vault yet (a chapter run alone).
    func ensureVault() async throws(AgentError) {
        guard !vaultReady else { return }
        try await startAgent()
        try await requireWithKey(["vault", "init", "--slot", "fido2", "--device", device])
        vaultReady = true
    }

    func shutdown() async {
        agent?.stop()
        pcsc?.stop()
        await server.shutdown()
    }
}

/// One finished `passkey` command.
struct DemoRun: Sendable {
    let arguments: [String]
    let status: Int32
    let standardOutput: String
    let standardError: String

    /// Standard output without its surrounding white space (a token, a line).
    var output: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        return String(standardOutput.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
