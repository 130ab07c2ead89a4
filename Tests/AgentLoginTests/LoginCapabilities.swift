import AgentDevices
import AgentLogin
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import DevServer
import Harness
import Interaction
import Locking
import Logging

/// The login capability over what it needs — the runtime, the devices, the
/// vault and the tokens — composed as AgentCore's `CoreServices` composes
/// it, with the methods of all four in one `MethodTable`, in-process, in a
/// fresh temporary home. No browser: a test plays the person at the provider.
final class LoginCapabilities: Sendable {
    let harness: AgentHarness
    let runtime: AgentRuntime
    let vault: VaultCapability
    let tokens: TokensCapability
    let login: LoginCapability
    let methods: MethodTable
    let interaction = RecordingInteraction()

    init() throws {
        harness = try AgentHarness()
        runtime = try AgentRuntime(environment: harness.environment, runningAsAgent: false)
        let devices = DevicesCapability(runtime: runtime)
        let vault = VaultCapability(runtime: runtime, devices: devices)
        let tokens = TokensCapability(runtime: runtime, vault: vault)
        let login = LoginCapability(runtime: runtime, devices: devices, vault: vault, tokens: tokens)
        self.vault = vault
        self.tokens = tokens
        self.login = login
        methods = MethodTable { table in
            vault.register(into: &table)
            tokens.register(into: &table)
            login.register(into: &table)
        }
    }

    /// Creates the vault with a `fido2` slot on the software authenticator; it stays unlocked.
    func initializeVault() async throws {
        _ = try await methods.call(VaultInitMethod.self, VaultSlotParams(slot: "fido2", device: DeviceChoice(device: "virtual")),
                                   interaction: interaction)
    }

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

/// The error a call threw, for `#expect` on its kind and details.
func agentError(_ body: () async throws -> some Any) async -> AgentError? {
    do {
        _ = try await body()
        return nil
    } catch let error as AgentError {
        return error
    } catch {
        return AgentError(.internal, "not an AgentError: \(error)")
    }
}

/// A client that answers no question: it records the progress it is told
/// and the confirmations it was asked for, and says no to each; a PIN or an
/// account choice is refused.
final class RecordingInteraction: UserInteraction {
    private let stages = Locked<[ProgressStage]>([])
    private let confirmations = Locked<[ConfirmationRequest]>([])

    var progressSeen: [ProgressStage] { stages.withLock { $0 } }
    var confirmationsAsked: [ConfirmationRequest] { confirmations.withLock { $0 } }

    func progress(_ stage: ProgressStage) { stages.withLock { $0.append(stage) } }
    func pin(_ request: PINRequest) async throws -> String { throw AgentError(.cancelled, "this test answers no PIN question") }
    func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int { throw AgentError(.cancelled, "this test chooses no account") }
    func confirm(_ request: ConfirmationRequest) async throws -> Bool {
        confirmations.withLock { $0.append(request) }
        return false
    }
}
