import AgentProtocol
import AgentRuntime
import AgentTestSupport
import AgentTokens
import Harness
import Settings
import Testing
import TestSupport

/// The one refresh path (Refresh.swift) against a real token endpoint on
/// loopback, in this process: it rotates refresh tokens and accepts each
/// one once (`TokenEndpoint`), so a refresh token the agent failed to store
/// shows as the next refresh's `invalid_grant`.
@Suite(.ownThreads) struct RefreshTests {
    @Test("get with minValid beyond the expiry refreshes once and stores the rotated refresh token before answering")
    func refreshStoresTheRotation() async throws {
        let agent = try TokenCapabilities()
        try await agent.initializeVault()
        let endpoint = try TokenEndpoint(refreshToken: "RT-1", expiresIn: 7200)
        try await agent.put("work", expiresIn: 60, scope: "read write", endpoint: endpoint.url)

        let fresh = try await agent.get("work", minValid: 600)
        #expect(fresh.accessToken == "AT-2" && fresh.refreshed)
        #expect(endpoint.refreshes == 1)
        #expect(endpoint.received.first?["refresh_token"] == "RT-1" && endpoint.received.first?["scope"] == nil)
        let stored = try await agent.stored("work")
        #expect(stored.accessToken == "AT-2" && stored.refreshToken == "RT-2")
        #expect(stored.scope == "read write", "a response without `scope` keeps the scope granted before")

        // Good for 7200 s now: answered from the vault, no second refresh.
        let cached = try await agent.get("work", minValid: 600)
        #expect(cached.accessToken == "AT-2" && !cached.refreshed)
        #expect(endpoint.refreshes == 1)
        // Asked for more than it lives: the stored (rotated) refresh token is the one sent.
        let again = try await agent.get("work", minValid: 7300)
        #expect(again.accessToken == "AT-3" && again.refreshed)
        #expect(endpoint.received.last?["refresh_token"] == "RT-2" && endpoint.refused == 0)
    }

    @Test("a narrower scope: a refresh of its own, answered and not stored — but its rotated refresh token is")
    func narrowedScope() async throws {
        let agent = try TokenCapabilities()
        try await agent.initializeVault()
        let endpoint = try TokenEndpoint(refreshToken: "RT-1", expiresIn: 3600)
        try await agent.put("work", accessToken: "AT-full", scope: "read write", idToken: "h.p.s", endpoint: endpoint.url)

        let narrowed = try await agent.get("work", scope: "read", idToken: true)
        #expect(narrowed.accessToken == "AT-2" && narrowed.refreshed)
        #expect(narrowed.idToken == "h.p.s", "a narrowed answer carries the stored ID token, not one nobody checked")
        #expect(narrowed.scope == "read", "the endpoint left `scope` out: it is the one asked for (RFC 6749 §5.1), not the stored one")
        #expect(endpoint.received.last?["scope"] == "read")
        let stored = try await agent.stored("work")
        #expect(stored.accessToken == "AT-full" && stored.scope == "read write", "the stored access token keeps the full scope")
        #expect(stored.refreshToken == "RT-2", "the provider's rotation is stored: RT-1 is dead there")

        // The full scope is still answered from the vault, and the next refresh sends RT-2.
        #expect(try await agent.get("work").accessToken == "AT-full")
        #expect(try await agent.get("work", scope: "write read").accessToken == "AT-full", "the same scopes in another order narrow nothing")
        let full = try await agent.get("work", minValid: 7200)
        #expect(full.accessToken == "AT-3" && endpoint.received.last?["refresh_token"] == "RT-2")
        #expect(endpoint.refused == 0)
        // A scope the rules refuse is refused before any request.
        let before = endpoint.received.count
        #expect(await agentError { try await agent.get("work", scope: #"read "all""#) }?.kind == .invalidInput)
        #expect(endpoint.received.count == before)
    }

    @Test("invalid_grant for a login account: reloginRequired, the account marked as needing a login, and a later refresh clears it")
    func invalidGrantOnALoginAccount() async throws {
        let agent = try TokenCapabilities()
        try await agent.initializeVault()
        let endpoint = try TokenEndpoint(refreshToken: "RT-1", expiresIn: 3600)
        let issuer = TokenCapabilities.origin(of: endpoint.url)
        try await agent.put("okta", expiresIn: 60, endpoint: endpoint.url)
        try agent.runtime.accounts.save(AccountSettings(issuer: issuer, clientId: "cli", scopes: ["openid", "offline_access"],
                                                        flow: "browser", subject: "alice"), for: "okta")
        endpoint.set(.invalidGrant)

        let refused = await agentError { try await agent.get("okta", minValid: 600) }
        #expect(refused?.kind == .serverError)
        #expect(refused?.details["reloginRequired"] == .bool(true))
        #expect(refused?.details["errorCode"] == .string("invalid_grant"))
        #expect(refused?.details["loginCommand"] == .string("passkey login okta"))
        #expect(try agent.runtime.accounts.load("okta")?.needsLogin == true)
        let listed = try await agent.methods.call(TokenListMethod.self, NoParams(), interaction: agent.interaction)
        #expect(listed.tokens.first?.login?.needsLogin == true)

        // A narrowed refresh takes the same path: sign in again, too.
        let narrowed = await agentError { try await agent.get("okta", scope: "openid") }
        #expect(narrowed?.details["loginCommand"] == .string("passkey login okta"))
        #expect(try await agent.stored("okta").accessToken == "AT-1", "nothing stored from a refused refresh")

        // The provider takes the refresh token again (its session came back): the mark goes.
        endpoint.set(.rotate)
        #expect(try await agent.get("okta", minValid: 600).accessToken == "AT-2")
        #expect(try agent.runtime.accounts.load("okta")?.needsLogin == false)
    }

    @Test("a login account whose settings file cannot be read is not refreshed as a plain one: the refresh stops, nothing is sent")
    func unreadableSettingsStopTheRefresh() async throws {
        let agent = try TokenCapabilities()
        try await agent.initializeVault()
        let endpoint = try TokenEndpoint(refreshToken: "RT-1", expiresIn: 3600)
        try await agent.put("okta", expiresIn: 60, endpoint: endpoint.url)
        try agent.runtime.accounts.save(AccountSettings(issuer: TokenCapabilities.origin(of: endpoint.url), clientId: "cli",
                                                        scopes: ["openid"], flow: "browser", subject: "alice"), for: "okta")
        // Damaged: its refreshed ID token would be stored unchecked if this counted as "no settings".
        let path = try agent.runtime.accounts.path(for: "okta")
        try TextFile.write("issuer = \"unterminated\n", to: path)

        let refused = await agentError { try await agent.get("okta", minValid: 600) }
        #expect(refused?.kind == .invalidInput, "\(String(describing: refused))")
        #expect(refused?.message.contains(path) == true, "the error names the file: \(String(describing: refused))")
        #expect(endpoint.received.isEmpty, "no refresh token was sent")
        #expect(try await agent.stored("okta").refreshToken == "RT-1")
    }

    @Test("invalid_grant for an account stored with token.put: reloginRequired, but no login to name and no settings written")
    func invalidGrantOnAPlainAccount() async throws {
        let agent = try TokenCapabilities()
        try await agent.initializeVault()
        let endpoint = try TokenEndpoint(refreshToken: "RT-1", expiresIn: 3600)
        try await agent.put("ci", expiresIn: 60, endpoint: endpoint.url)
        endpoint.set(.invalidGrant)
        let refused = await agentError { try await agent.get("ci", minValid: 600) }
        #expect(refused?.kind == .serverError && refused?.details["reloginRequired"] == .bool(true))
        #expect(refused?.details["loginCommand"] == nil)
        #expect(try agent.runtime.accounts.load("ci") == nil)
        #expect(endpoint.refreshes == 0 && endpoint.refused == 1)
    }

    @Test("no refresh token: an expiring token cannot be refreshed, and the error says to sign in again")
    func noRefreshToken() async throws {
        let agent = try TokenCapabilities()
        try await agent.initializeVault()
        try await agent.put("short", refreshToken: nil, expiresIn: 60, endpoint: "http://127.0.0.1:9/token")
        #expect(try await agent.get("short", minValid: 30).accessToken == "AT-1")
        let refused = await agentError { try await agent.get("short", minValid: 600) }
        #expect(refused?.kind == .serverError && refused?.details["errorCode"] == .string("login_required"))
    }

    @Test("a locked vault: get refuses with `locked` and refreshes nothing")
    func lockedVault() async throws {
        let agent = try TokenCapabilities()
        try await agent.initializeVault()
        let endpoint = try TokenEndpoint(refreshToken: "RT-1", expiresIn: 3600)
        try await agent.put("work", expiresIn: 60, endpoint: endpoint.url)
        try await agent.lock()
        for minValid in [0, 600] {
            #expect(await agentError { try await agent.get("work", minValid: minValid) }?.kind == .locked)
        }
        #expect(await agentError { try await agent.put("work", endpoint: endpoint.url) }?.kind == .locked)
        #expect(endpoint.received.isEmpty)
    }
}
