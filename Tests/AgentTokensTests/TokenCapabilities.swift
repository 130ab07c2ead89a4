import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import Harness
import Interaction
import Locking
import Tokens

/// The token capability over exactly what it needs — the runtime, the
/// devices (a `fido2` slot's key) and the vault — composed as AgentCore's
/// `CoreServices` composes them, in a fresh temporary home: the capability
/// tested on its own, through its methods in a `MethodTable`, in-process.
/// The vault is real (its files in the home), opened by the software
/// authenticator through libfido2.
final class TokenCapabilities: Sendable {
    let harness: AgentHarness
    let runtime: AgentRuntime
    let vault: VaultCapability
    let tokens: TokensCapability
    let methods: MethodTable
    let interaction = RecordingInteraction()

    init() throws {
        harness = try AgentHarness()
        runtime = try AgentRuntime(environment: harness.environment, runningAsAgent: false)
        let devices = DevicesCapability(runtime: runtime)
        let vault = VaultCapability(runtime: runtime, devices: devices)
        let tokens = TokensCapability(runtime: runtime, vault: vault)
        self.vault = vault
        self.tokens = tokens
        methods = MethodTable { table in
            vault.register(into: &table)
            tokens.register(into: &table)
        }
    }

    /// Creates the vault with a `fido2` slot on the software authenticator; it stays unlocked.
    func initializeVault() async throws {
        _ = try await methods.call(VaultInitMethod.self, VaultSlotParams(slot: "fido2", device: DeviceChoice(device: "virtual")),
                                   interaction: interaction)
    }

    func unlock() async throws {
        _ = try await methods.call(AgentUnlockMethod.self, VaultSlotParams(slot: "fido2", device: DeviceChoice(device: "virtual")),
                                   interaction: interaction)
    }

    func lock() async throws {
        _ = try await methods.call(AgentLockMethod.self, NoParams(), interaction: interaction)
    }

    /// `token.put` of an OAuth token response refreshed at `endpoint` by client `cli`.
    @discardableResult
    func put(_ account: String, accessToken: String = "AT-1", refreshToken: String? = "RT-1", expiresIn: Int = 3600,
             scope: String? = nil, idToken: String? = nil, endpoint: String, issuer: String? = nil) async throws -> TokenSummary {
        var token: [String: JSONValue] = [
            "access_token": .string(accessToken), "token_type": .string("Bearer"), "expires_in": .number(Double(expiresIn)),
            "issuer": .string(issuer ?? Self.origin(of: endpoint)), "client_id": .string("cli"), "token_endpoint": .string(endpoint),
        ]
        if let refreshToken { token["refresh_token"] = .string(refreshToken) }
        if let scope { token["scope"] = .string(scope) }
        if let idToken { token["id_token"] = .string(idToken) }
        return try await methods.call(TokenPutMethod.self, .init(account: account, token: .object(token)), interaction: interaction)
    }

    func get(_ account: String, minValid: Int? = nil, scope: String? = nil, idToken: Bool? = nil) async throws(AgentError) -> AccessTokenResult {
        try await methods.call(TokenGetMethod.self, .init(account: account, minValid: minValid, scope: scope, idToken: idToken),
                               interaction: interaction)
    }

    /// The account's entry as the vault holds it now.
    func stored(_ account: String) async throws -> TokenSet {
        try await vault.vault.withUnlocked { open in try TokensCapability.read(account, from: open) }
    }

    /// `http://127.0.0.1:PORT` of an endpoint's URL: a loopback issuer.
    static func origin(of url: String) -> String {
        let afterScheme = url.dropFirst("http://".count)
        return "http://" + afterScheme.prefix { $0 != "/" }
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

/// A client that answers no question: it records the progress it is told,
/// and a question (a PIN, an account, a confirmation) is a test failure.
final class RecordingInteraction: UserInteraction {
    private let stages = Locked<[ProgressStage]>([])

    var progressSeen: [ProgressStage] { stages.withLock { $0 } }

    func progress(_ stage: ProgressStage) { stages.withLock { $0.append(stage) } }
    func pin(_ request: PINRequest) async throws -> String { throw AgentError(.cancelled, "this test answers no PIN question") }
    func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int { throw AgentError(.cancelled, "this test chooses no account") }
    func confirm(_ request: ConfirmationRequest) async throws -> Bool { false }
}
