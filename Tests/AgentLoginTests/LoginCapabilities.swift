import AgentDevices
import AgentLogin
import AgentProtocol
import AgentRuntime
import AgentTestSupport
import AgentTokens
import AgentVault
import DevServer
import Harness
import Interaction
import Locking
import Logging

/// The login capability over what it needs (a `CapabilityStack`, and the
/// tokens), with the methods of the vault, the tokens and the login in one
/// `MethodTable`, in-process. No browser: a test plays the person at the provider.
final class LoginCapabilities: Sendable {
    let stack: CapabilityStack
    let tokens: TokensCapability
    let login: LoginCapability
    let methods: MethodTable
    var harness: AgentHarness { stack.harness }
    var runtime: AgentRuntime { stack.runtime }
    var vault: VaultCapability { stack.vault }
    var interaction: RecordingInteraction { stack.interaction }

    init() throws {
        let stack = try CapabilityStack()
        let tokens = TokensCapability(runtime: stack.runtime, vault: stack.vault)
        let login = LoginCapability(runtime: stack.runtime, devices: stack.devices, vault: stack.vault, tokens: tokens)
        self.stack = stack
        self.tokens = tokens
        self.login = login
        methods = MethodTable { table in
            stack.vault.register(into: &table)
            tokens.register(into: &table)
            login.register(into: &table)
        }
    }

    func initializeVault() async throws { try await stack.initializeVault() }

    func begin(_ params: LoginBeginMethod.Params) async throws -> LoginStarted {
        try await methods.call(LoginBeginMethod.self, params, interaction: interaction)
    }
}

/// The devserver's authorization server (issuer `…/oauth2/default`, public
/// client `cli` with loopback redirects) in this process, on an ephemeral
/// loopback port, for the length of `body`.
func withDevServer<T>(_ body: (RunningDevServer) async throws -> T) async throws -> T {
    let server = try await DevServer.start(DevServerConfiguration(logger: Logger(label: "devserver") { _ in SwiftLogNoOpLogHandler() }))
    do {
        let result = try await body(server)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}
