import AgentProtocol
import AgentRuntime
import AgentTestSupport
import Foundation
import Harness
import HTTPTransport
import Settings
import Testing
import TestSupport

/// `login.*` and `invoke.*` through the login capability's methods,
/// in-process: what is refused before any network or browser, and a whole
/// paste-flow login against the devserver's authorization server in this
/// process, with the test as the person at the provider.
@Suite(.ownThreads) struct LoginMethodsTests {
    @Test("login.begin refuses what it is given before the vault, the network or a browser is touched")
    func beginRefusals() async throws {
        let agent = try LoginCapabilities()
        let issuer = "https://id.example.com/oauth2"
        typealias Params = LoginBeginMethod.Params
        let refused: [(Params, AgentErrorKind)] = [
            (Params(account: ""), .invalidInput),
            (Params(account: "work"), .invalidInput),  // a first login needs the issuer
            (Params(account: "work", issuer: issuer), .invalidInput),  // and the client
            (Params(account: "work", issuer: issuer, clientId: String(repeating: "c", count: 257)), .invalidInput),
            (Params(account: "work", issuer: "http://id.example.com", clientId: "cli"), .invalidInput),  // http only on loopback
            (Params(account: "work", issuer: issuer, clientId: "cli", scopes: [#"read"all"#]), .invalidInput),
            (Params(account: "work", issuer: issuer, clientId: "cli", scopes: []), .invalidInput),
            (Params(account: "work", issuer: issuer, clientId: "cli", extra: ["state": "mine"]), .invalidInput),  // the agent's own
            (Params(account: "work", issuer: issuer, clientId: "cli", timeout: 0), .invalidParams),
            (Params(account: "work", issuer: issuer, clientId: "cli", timeout: 1801), .invalidParams),
            (Params(account: "work", issuer: issuer, clientId: "cli", port: 65536), .invalidParams),
            (Params(account: "work", issuer: issuer, clientId: "cli", redirectURI: "https://evil.example/callback"), .invalidInput),
            (Params(account: "work", issuer: issuer, clientId: "cli", username: "bob\u{1b}[2J"), .invalidInput),
        ]
        for (params, kind) in refused {
            let error = await agentError { try await agent.begin(params) }
            #expect(error?.kind == kind, "\(params): \(String(describing: error))")
        }
        // Everything in order, but no vault to land in: refused before discovery
        // (nothing listens at this issuer; a network error would mean it was asked).
        let valid = Params(account: "work", issuer: "http://127.0.0.1:9/oauth2", clientId: "cli", flow: .paste)
        #expect(await agentError { try await agent.begin(valid) }?.kind == .vaultError)

        // An account that signs in elsewhere is not moved without --force.
        try agent.runtime.accounts.save(AccountSettings(issuer: issuer, clientId: "cli", scopes: ["openid"], flow: "browser", subject: "alice"),
                                        for: "work")
        let moved = await agentError { try await agent.begin(valid) }
        #expect(moved?.kind == .invalidInput && moved?.message.contains("--force") == true, "\(String(describing: moved))")
        var forced = valid
        forced.force = true
        #expect(await agentError { try await agent.begin(forced) }?.kind == .vaultError)

        try await agent.initializeVault()
        _ = try await agent.methods.call(AgentLockMethod.self, NoParams(), interaction: agent.interaction)
        #expect(await agentError { try await agent.begin(forced) }?.kind == .locked)
        #expect(agent.login.logins.login(for: "work") == nil, "nothing refused is left in flight")
    }

    @Test("no login in flight: wait, complete and cancel say not_found; their own limits are checked")
    func nothingInFlight() async throws {
        let agent = try LoginCapabilities()
        let call = agent.methods
        let interaction = agent.interaction
        #expect(await agentError { try await call.call(LoginWaitMethod.self, .init(account: "work", seconds: 1), interaction: interaction) }?
            .kind == .notFound)
        #expect(await agentError { try await call.call(LoginCompleteMethod.self, .init(account: "work", redirectURL: "http://127.0.0.1:1/callback?code=x"),
                                                       interaction: interaction) }?.kind == .notFound)
        #expect(await agentError { try await call.call(LoginCancelMethod.self, .init(account: "work"), interaction: interaction) }?.kind == .notFound)
        #expect(await agentError { try await call.call(LoginWaitMethod.self, .init(account: "work", seconds: 0), interaction: interaction) }?
            .kind == .invalidParams)
        #expect(await agentError { try await call.call(LoginWaitMethod.self, .init(account: "work", seconds: 121), interaction: interaction) }?
            .kind == .invalidParams)
        let long = "http://127.0.0.1:1/callback?code=" + String(repeating: "x", count: 8192)
        #expect(await agentError { try await call.call(LoginCompleteMethod.self, .init(account: "work", redirectURL: long), interaction: interaction) }?
            .kind == .invalidInput)
        #expect(await agentError { try await call.call(LoginCancelMethod.self, .init(account: "\u{7}"), interaction: interaction) }?
            .kind == .invalidInput)
        // A logout needs the account's tokens: none are stored (and no vault to hold them).
        #expect(await agentError { try await call.call(LogoutMethod.self, .init(account: "work"), interaction: interaction) }?.kind == .vaultError)
    }

    @Test("invoke.check and invoke: malformed URLs are invalid_input, a redirect of no login is not_found, an untrusted request asks nobody")
    func invokeRefusals() async throws {
        let agent = try LoginCapabilities()
        let interaction = agent.interaction
        for url in ["", "https://app.example/cb\u{0}", "https://app.example/cb\n", String(repeating: "a", count: 16_385)] {
            #expect(await agentError { try await agent.methods.call(InvokeCheckMethod.self, .init(url: url), interaction: interaction) }?
                .kind == .invalidInput, "\(url.prefix(40).debugDescription)")
            #expect(await agentError { try await agent.methods.call(InvokeMethod.self, .init(url: url), interaction: interaction) }?
                .kind == .invalidInput)
        }
        // By their shape alone (nothing verified without `verify`).
        let authenticate = "com.example.app://invoke/bi-authenticate?request=e30.e30.sig"
        #expect(try await agent.methods.call(InvokeCheckMethod.self, .init(url: authenticate), interaction: interaction)
            == InvokeCheck(kind: .authenticate))
        let stray = "http://127.0.0.1:4/callback?code=c&state=s"
        #expect(try await agent.methods.call(InvokeCheckMethod.self, .init(url: stray), interaction: interaction) == InvokeCheck(kind: nil))
        #expect(await agentError { try await agent.methods.call(InvokeMethod.self, .init(url: stray), interaction: interaction) }?.kind == .notFound)

        // A request whose key set is on no trusted application's host (none is
        // trusted here): refused before its keys are fetched, the person is asked
        // or a key is touched.
        let header = #"{"alg":"ES256","kid":"k1","jku":"https://evil.example/v1/tenants/t/.well-known/jwks.json"}"#
        let request = base64URL(header) + "." + base64URL("{}") + ".c2ln"
        let untrusted = await agentError {
            try await agent.methods.call(InvokeMethod.self, .init(url: "com.example.app://invoke/bi-authenticate?request=" + request,
                                                                  device: DeviceChoice(device: "virtual"), interactive: true),
                                         interaction: interaction)
        }
        #expect(untrusted?.kind == .denied && untrusted?.message.contains("evil.example") == true, "\(String(describing: untrusted))")
        #expect(interaction.confirmationsAsked.isEmpty && interaction.progressSeen.isEmpty)
        let malformed = await agentError {
            try await agent.methods.call(InvokeCheckMethod.self, .init(url: authenticate, verify: true), interaction: interaction)
        }
        #expect(malformed?.kind == .invalidInput || malformed?.kind == .denied, "\(String(describing: malformed))")
    }

    @Test("a paste login at the devserver: a redirect of another state refused, the right one through invoke, tokens stored, refreshed, logged out")
    func pasteLogin() async throws {
        let agent = try LoginCapabilities()
        try await agent.initializeVault()
        try await withDevServer { server in
            let started = try await agent.begin(.init(account: "dev", issuer: server.issuer, clientId: "cli", flow: .paste, timeout: 120))
            #expect(started.flow == .paste && started.issuer == server.issuer && started.launchPage == nil)
            let authorizationURL = try #require(started.authorizationURL)
            let redirectURI = try #require(started.redirectURI)
            #expect(redirectURI.hasPrefix("http://127.0.0.1:") && redirectURI.hasSuffix("/callback"))
            #expect(authorizationURL.hasPrefix(server.issuer + "/v1/authorize?") && authorizationURL.contains("code_challenge_method=S256"))

            // The person approves at the provider; it sends the browser back with a code.
            let redirect = try await approve(authorizationURL, as: "alice")
            #expect(redirect.hasPrefix(redirectURI + "?"))

            // The same redirect with another login's state: refused, and the login waits on.
            let forged = try #require(replacingState(in: redirect, with: "not-this-login"))
            let forgedRefusal = await agentError {
                try await agent.methods.call(LoginCompleteMethod.self, .init(account: "dev", redirectURL: forged), interaction: agent.interaction)
            }
            #expect(forgedRefusal?.kind == .invalidInput, "\(String(describing: forgedRefusal))")
            // The URL-scheme handler's path: the redirect is recognised as this login's, and handed to it.
            #expect(try await agent.methods.call(InvokeCheckMethod.self, .init(url: redirect), interaction: agent.interaction)
                == InvokeCheck(kind: .redirect, account: "dev"))
            let invoked = try await agent.methods.call(InvokeMethod.self, .init(url: redirect), interaction: agent.interaction)
            #expect(invoked.kind == .redirect && invoked.account == "dev")
            let waited = try await agent.methods.call(LoginWaitMethod.self, .init(account: "dev", seconds: 60), interaction: agent.interaction)
            let result = try #require(waited.login)
            #expect(waited.done && result.subject == "alice" && result.flow == .paste && result.issuer == server.issuer)

            // Landed through the token capability's write, with the account's settings.
            let token = try await agent.methods.call(TokenGetMethod.self, .init(account: "dev", idToken: true), interaction: agent.interaction)
            #expect(!token.refreshed && !token.accessToken.isEmpty && token.idToken != nil)
            let settings = try #require(try agent.runtime.accounts.load("dev"))
            #expect(settings.issuer == server.issuer && settings.clientId == "cli" && settings.subject == "alice" && settings.flow == "paste")
            let list = try await agent.methods.call(TokenListMethod.self, NoParams(), interaction: agent.interaction)
            #expect(list.tokens.first?.login == AccountLogin(flow: .paste, subject: "alice", needsLogin: false))

            // A refresh of a login account: its new ID token checked against the first.
            let refreshed = try await agent.methods.call(TokenGetMethod.self, .init(account: "dev", minValid: 7200, idToken: true),
                                                         interaction: agent.interaction)
            #expect(refreshed.refreshed && refreshed.accessToken != token.accessToken)
            // The devserver sends a new ID token with the refresh: it was checked (same iss, sub, aud) before being kept.
            #expect(refreshed.idToken != nil && refreshed.idToken != token.idToken)

            // Logout revokes at the provider and forgets the account.
            let logout = try await agent.methods.call(LogoutMethod.self, .init(account: "dev"), interaction: agent.interaction)
            #expect(logout.removed && logout.revocationProblem == nil)
            #expect(Set(logout.revoked) == ["refresh_token", "access_token"])
            #expect(await agentError {
                try await agent.methods.call(TokenGetMethod.self, .init(account: "dev"), interaction: agent.interaction)
            }?.kind == .notFound)
            #expect(try agent.runtime.accounts.load("dev") == nil)
        }
    }

    @Test("a remembered account signs in again without issuer or client; login.complete lands it; login.cancel ends a login in flight")
    func rememberedLoginAndCancel() async throws {
        let agent = try LoginCapabilities()
        try await agent.initializeVault()
        try await withDevServer { server in
            try agent.runtime.accounts.save(AccountSettings(issuer: server.issuer, clientId: "cli", scopes: ["openid", "offline_access"],
                                                            flow: "paste", subject: "alice"), for: "dev")
            let started = try await agent.begin(.init(account: "dev"))
            #expect(started.flow == .paste && started.issuer == server.issuer)
            let redirect = try await approve(try #require(started.authorizationURL), as: "alice")
            let completed = try await agent.methods.call(LoginCompleteMethod.self, .init(account: "dev", redirectURL: redirect),
                                                         interaction: agent.interaction)
            #expect(completed == LoginCompleted(account: "dev", accepted: true))
            let waited = try await agent.methods.call(LoginWaitMethod.self, .init(account: "dev", seconds: 60), interaction: agent.interaction)
            #expect(waited.login?.subject == "alice" && waited.login?.scope?.contains("offline_access") == true)

            // Another login, cancelled: it is gone, and its redirect belongs to nobody.
            let other = try await agent.begin(.init(account: "other", issuer: server.issuer, clientId: "cli", flow: .paste))
            let cancelled = try await agent.methods.call(LoginCancelMethod.self, .init(account: "other"), interaction: agent.interaction)
            #expect(cancelled.accepted)
            #expect(await agentError {
                try await agent.methods.call(LoginWaitMethod.self, .init(account: "other", seconds: 1), interaction: agent.interaction)
            }?.kind == .notFound)
            let late = try await approve(try #require(other.authorizationURL), as: "alice")
            #expect(try await agent.methods.call(InvokeCheckMethod.self, .init(url: late), interaction: agent.interaction) == InvokeCheck(kind: nil))
        }
    }
}

/// The person at the devserver's sign-in page (its development shortcut:
/// name the user, no passkey): the form post, and the redirect it answers with.
private func approve(_ authorizationURL: String, as user: String) async throws -> String {
    let response = try await HTTPTransport().postForm(authorizationURL, [("action", "allow"), ("user", user)])
    #expect((300..<400).contains(response.status), "\(response.status): \(String(decoding: response.body, as: UTF8.self))")
    return try #require(response.header("Location"))
}

/// `url` with its `state` query field replaced.
private func replacingState(in url: String, with state: String) -> String? {
    guard var parts = URLComponents(string: url) else { return nil }
    parts.queryItems = parts.queryItems?.map { $0.name == "state" ? URLQueryItem(name: "state", value: state) : $0 }
    return parts.string
}

private func base64URL(_ text: String) -> String {
    Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
