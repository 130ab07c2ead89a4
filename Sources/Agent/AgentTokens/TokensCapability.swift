import AgentProtocol
import AgentRuntime
import AgentVault
import HTTPTransport
import Locking
import OpenID
import Settings

/// OAuth token sets in the vault: `token.get` (the fast path answered from
/// memory, refresh when due, `--scope` narrowing), `token.put`, `token.list`
/// and `token.delete`; one writer per account at a time.
package final class TokensCapability: Sendable {
    package let runtime: AgentRuntime
    package let vault: VaultService
    package let tokens = TokenState()
    private let providers = Locked<[String: OpenIDProvider]>([:])

    package init(runtime: AgentRuntime, vault: VaultCapability) {
        self.runtime = runtime
        self.vault = vault.vault
    }

    package var settings: Settings { runtime.settings }
    package var http: HTTPTransport { runtime.http }
    package var accounts: AccountSettingsStore { runtime.accounts }

    package func register(into table: inout MethodTable.Builder) {
        registerTokens(into: &table)
    }

    /// The one `OpenIDProvider` of `issuer` in this agent — made here only,
    /// with the agent's HTTP client and the provider cache directory — that
    /// a login, a logout and a refresh's ID-token check share, so discovery
    /// and the key set are fetched once for all of them.
    package func openIDProvider(_ issuer: String) -> OpenIDProvider {
        providers.withLock { providers in
            if let known = providers[issuer] { return known }
            let made = OpenIDProvider(issuer: issuer, transport: http, cacheDirectory: runtime.paths.openIDCacheDirectory)
            providers[issuer] = made
            return made
        }
    }
}
