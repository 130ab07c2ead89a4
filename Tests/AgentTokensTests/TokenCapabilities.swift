import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTestSupport
import AgentTokens
import AgentVault
import Harness
import Interaction
import Locking
import Tokens

/// The token capability over exactly what it needs (the runtime, the
/// devices and the vault: a `CapabilityStack`), tested on its own through
/// its methods in a `MethodTable`, in-process.
final class TokenCapabilities: Sendable {
    let stack: CapabilityStack
    let tokens: TokensCapability
    let methods: MethodTable
    var harness: AgentHarness { stack.harness }
    var runtime: AgentRuntime { stack.runtime }
    var vault: VaultCapability { stack.vault }
    var interaction: RecordingInteraction { stack.interaction }

    init() throws {
        let stack = try CapabilityStack()
        let tokens = TokensCapability(runtime: stack.runtime, vault: stack.vault)
        self.stack = stack
        self.tokens = tokens
        methods = MethodTable { table in
            stack.vault.register(into: &table)
            tokens.register(into: &table)
        }
    }

    func initializeVault() async throws { try await stack.initializeVault() }
    func unlock() async throws { try await stack.unlock() }
    func lock() async throws { try await stack.lock() }

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
