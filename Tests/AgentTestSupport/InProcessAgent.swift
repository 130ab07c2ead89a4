import AgentCore
import AgentProtocol
import AgentServer
import Harness
import Logging

/// The agent's server started in this process, as `passkey-agent` starts it
/// (ListeningSocket in a fresh 0700 directory, AgentServer over an AgentCore
/// and its method table), in a temporary home: no child process. Clients are
/// the real ones — `AgentConnection`, or `LineClient` for exact bytes.
package final class InProcessAgent: Sendable {
    package let harness: AgentHarness
    package let core: AgentCore
    package let server: AgentServer
    private let running: Task<Void, any Error>

    package var socketPath: String { harness.socketPath }

    package init(limits: AgentServer.Limits = AgentServer.Limits(), extraEnvironment: [String: String] = [:]) throws {
        harness = try AgentHarness(extraEnvironment: extraEnvironment)
        core = try AgentCore(environment: harness.environment, runningAsAgent: false)
        // Bound and listening before `run`: a client may connect at once; it is accepted when the server starts.
        let socket = try ListeningSocket.create(at: harness.socketPath, backlog: limits.listenBacklog)
        server = AgentServer(core: core, socket: socket, limits: limits, logger: Logger(label: "agent-server-tests") { _ in SwiftLogNoOpLogHandler() })
        let server = self.server
        running = Task { try await server.run() }
    }

    /// A test that failed before `stop` leaves no server listening behind it.
    deinit { server.shutdown() }

    /// Stops the server and waits until `run` has returned (connections closed, socket file removed).
    package func stop() async throws {
        server.shutdown()
        try await running.value
    }

    /// Runs `body` against a fresh agent, and stops it afterwards, whatever `body` did.
    package static func with<T>(limits: AgentServer.Limits = AgentServer.Limits(), extraEnvironment: [String: String] = [:],
                        _ body: (InProcessAgent) async throws -> T) async throws -> T {
        let agent = try InProcessAgent(limits: limits, extraEnvironment: extraEnvironment)
        do {
            let result = try await body(agent)
            try await agent.stop()
            return result
        } catch {
            try? await agent.stop()
            throw error
        }
    }

    package func connect() throws -> LineClient { try LineClient(path: socketPath) }

    /// The vault set up in-process (fido2 slot on the software authenticator), unlocked.
    package func initializeVault(pin: String? = nil) async throws {
        _ = try await core.methods.call(VaultInitMethod.self, VaultSlotParams(slot: "fido2", pin: pin, device: DeviceChoice(device: "virtual")),
                                        interaction: ScriptedPerson())
    }

    /// `token.put` in-process.
    package func put(_ account: String, access: String, refresh: String, expiresIn: Int, endpoint: String) async throws {
        let token: JSONValue = .object([
            "access_token": .string(access), "token_type": .string("Bearer"), "expires_in": .number(Double(expiresIn)),
            "refresh_token": .string(refresh), "issuer": .string("https://id.example.org"), "client_id": .string("cli"),
            "token_endpoint": .string(endpoint), "scope": .string("openid offline_access"),
        ])
        _ = try await core.methods.call(TokenPutMethod.self, .init(account: account, token: token), interaction: ScriptedPerson())
    }

    /// `token.get` in-process: after this the agent keeps the entry's answer in memory (its fast path can answer).
    package func get(_ account: String) async throws -> AccessTokenResult {
        try await core.methods.call(TokenGetMethod.self, .init(account: account), interaction: ScriptedPerson())
    }
}
