import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import HTTPTransport
import OpenID
import Settings

/// `passkey login` and what arrives for a login: the methods `login.begin`,
/// `login.wait`, `login.complete`, `login.cancel`, `login.logout`, the
/// Okta IDX sign-in's `login.idx.proceed`, and the URL-scheme handler's
/// `invoke.check` and `invoke`, whose redirects end in a login in flight.
/// A login lands its tokens through the token capability's one write, and
/// the IDX sign-in and invokes use a key through the device broker.
package final class LoginCapability: Sendable {
    package let runtime: AgentRuntime
    package let devices: DeviceBroker
    package let vault: VaultService
    package let tokenCapability: TokensCapability
    /// The logins in flight, one per account, with their secrets in memory only.
    package let logins = LoginSessions()

    package init(runtime: AgentRuntime, devices: DevicesCapability, vault: VaultCapability, tokens: TokensCapability) {
        self.runtime = runtime
        self.devices = devices.devices
        self.vault = vault.vault
        tokenCapability = tokens
    }

    package var paths: AgentPaths { runtime.paths }
    package var config: LiveSettings { runtime.config }
    package var settings: Settings { runtime.settings }
    package var http: HTTPTransport { runtime.http }
    package var accounts: AccountSettingsStore { runtime.accounts }
    package var started: ContinuousClock.Instant { runtime.started }
    package var tokens: TokenState { tokenCapability.tokens }
    package func openIDProvider(_ issuer: String) -> OpenIDProvider { tokenCapability.openIDProvider(issuer) }

    package func register(into table: inout MethodTable.Builder) {
        registerLogin(into: &table)
        registerInvoke(into: &table)
    }
}
