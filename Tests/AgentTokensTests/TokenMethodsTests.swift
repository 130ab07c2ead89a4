import AgentProtocol
import AgentRuntime
import AgentTestSupport
import AgentTokens
import Foundation
import Harness
import Testing
import TestSupport

/// `token.put`, `token.get`, `token.list` and `token.delete` through the
/// method table, in-process, over a real vault: typed calls (the CLI's
/// in-process path), JSON dispatch (the socket's) and the plain line's fast
/// path must give the same answers.
@Suite(.ownThreads) struct TokenMethodsTests {
    @Test("put, then get answers the stored token: typed, JSON and the fast path agree; a lock ends the fast path")
    func putThenGet() async throws {
        let agent = try TokenCapabilities()
        try await agent.initializeVault()
        // Never refreshed here: the endpoint is a port nothing listens on.
        let endpoint = "http://127.0.0.1:9/token"
        let summary = try await agent.put("work", accessToken: "AT-first", scope: "read write", idToken: "h.p.s", endpoint: endpoint)
        #expect(summary.account == "work" && summary.clientId == "cli" && summary.issuer == "http://127.0.0.1:9")
        #expect(summary.hasRefreshToken && summary.hasIdToken && summary.scope == "read write")

        let typed = try await agent.get("work")
        #expect(typed.accessToken == "AT-first" && typed.tokenType == "Bearer" && !typed.refreshed)
        #expect(typed.scope == "read write" && typed.idToken == nil)
        let expiresAt = try #require(typed.expiresAt)
        #expect(abs(expiresAt - (Int64(Date().timeIntervalSince1970) + 3600)) < 30)

        let json = try await agent.methods.dispatch(method: TokenGetMethod.name, params: .object(["account": .string("work")]),
                                                    interaction: agent.interaction)
        #expect(try json.decode(as: AccessTokenResult.self) == typed)

        // The plain line, answered from the entry kept in memory.
        let line = try #require(TokenGetWire.request(id: 7, account: "work", minValid: 60)).dropLast()
        let fast = try #require(agent.methods.dispatchFast(line: Array(line)))
        #expect(fast.id == .number(7))
        #expect(try JSONDecoder().decode(AccessTokenResult.self, from: Data(fast.result)) == typed)
        // What the fast path cannot answer at once goes the usual way: a token that
        // expires too soon (a refresh), another scope, the ID token.
        #expect(agent.methods.dispatchFast(line: Array(try #require(TokenGetWire.request(id: 8, account: "work", minValid: 7200)))) == nil)
        let idTokenLine = #"{"jsonrpc":"2.0","id":9,"method":"token.get","params":{"account":"work","idToken":true}}"#
        #expect(agent.methods.dispatchFast(line: Array(idTokenLine.utf8)) == nil)
        #expect(try await agent.get("work", idToken: true).idToken == "h.p.s")

        // Locked: nothing is answered from memory, and the usual way says `locked`.
        try await agent.lock()
        #expect(agent.methods.dispatchFast(line: Array(line)) == nil)
        #expect(await agentError { try await agent.get("work") }?.kind == .locked)
        // Unlocked again, the same token.
        try await agent.unlock()
        #expect(try await agent.get("work") == typed)
    }

    @Test("token.list names each account without a token; while locked it lists only login accounts, from their settings")
    func listing() async throws {
        let agent = try TokenCapabilities()
        let none = try await agent.methods.call(TokenListMethod.self, NoParams(), interaction: agent.interaction)
        #expect(none.noVault == true && none.tokens.isEmpty)

        try await agent.initializeVault()
        try await agent.put("b-plain", accessToken: "AT-secret-b", endpoint: "http://127.0.0.1:9/token")
        try await agent.put("a-login", accessToken: "AT-secret-a", endpoint: "http://127.0.0.1:9/token")
        try agent.runtime.accounts.save(.init(issuer: "http://127.0.0.1:9", clientId: "cli", scopes: ["openid"], flow: "browser",
                                              subject: "alice"), for: "a-login")
        let list = try await agent.methods.call(TokenListMethod.self, NoParams(), interaction: agent.interaction)
        #expect(list.tokens.map(\.account) == ["a-login", "b-plain"])
        #expect(list.tokens[0].login == AccountLogin(flow: .browser, subject: "alice", needsLogin: false))
        #expect(list.tokens[1].login == nil)
        #expect(list.damaged.isEmpty && list.locked == nil && list.noVault == nil)
        let listed = String(decoding: try JSONEncoder().encode(list), as: UTF8.self)
        #expect(!listed.contains("AT-secret") && !listed.contains("RT-1"))

        try await agent.lock()
        let locked = try await agent.methods.call(TokenListMethod.self, NoParams(), interaction: agent.interaction)
        #expect(locked.locked == true && locked.tokens.isEmpty)
        #expect(locked.lockedAccounts?.map(\.account) == ["a-login"])
    }

    @Test("token.delete forgets the account: get and delete then say not_found, and other accounts stay")
    func deleteThenGet() async throws {
        let agent = try TokenCapabilities()
        try await agent.initializeVault()
        try await agent.put("gone", endpoint: "http://127.0.0.1:9/token")
        try await agent.put("kept", accessToken: "AT-kept", endpoint: "http://127.0.0.1:9/token")
        _ = try await agent.get("gone")  // kept in memory too

        let deleted = try await agent.methods.call(TokenDeleteMethod.self, .init(account: "gone"), interaction: agent.interaction)
        #expect(deleted == TokenDeleteResult(account: "gone", deleted: true))
        let missing = await agentError { try await agent.get("gone") }
        #expect(missing?.kind == .notFound)
        #expect(missing?.details["loginCommand"] == .string("passkey login gone"))
        let line = Array(try #require(TokenGetWire.request(id: 1, account: "gone", minValid: 0)).dropLast())
        #expect(agent.methods.dispatchFast(line: line) == nil)
        #expect(await agentError { try await agent.methods.call(TokenDeleteMethod.self, .init(account: "gone"), interaction: agent.interaction) }?
            .kind == .notFound)
        #expect(try await agent.get("kept").accessToken == "AT-kept")
    }

    @Test("refusals: account names, minValid, a token document without its endpoint, an insecure endpoint, no vault")
    func refusals() async throws {
        let agent = try TokenCapabilities()
        // No vault yet: the put cannot land.
        let noVault = await agentError { try await agent.put("work", endpoint: "http://127.0.0.1:9/token") }
        #expect(noVault?.kind == .vaultError)
        try await agent.initializeVault()

        for account in ["", " padded", "tab\tbed", String(repeating: "x", count: 129)] {
            #expect(await agentError { try await agent.get(account) }?.kind == .invalidInput, "\(account.debugDescription)")
            #expect(await agentError { try await agent.put(account, endpoint: "http://127.0.0.1:9/token") }?.kind == .invalidInput)
        }
        try await agent.put("work", endpoint: "http://127.0.0.1:9/token")
        for minValid in [-1, 366 * 86_400 + 1] {
            #expect(await agentError { try await agent.get("work", minValid: minValid) }?.kind == .invalidParams)
        }
        // Refresh tokens go only to https, or to http on this machine.
        let insecure = await agentError { try await agent.put("other", endpoint: "http://tokens.example.com/token") }
        #expect(insecure?.kind == .invalidInput)
        let noEndpoint = await agentError {
            try await agent.methods.call(TokenPutMethod.self, .init(account: "other", token: .object([
                "access_token": .string("AT"), "token_type": .string("Bearer"), "issuer": .string("https://id.example.com"),
                "client_id": .string("cli"),
            ])), interaction: agent.interaction)
        }
        #expect(noEndpoint?.kind == .invalidInput)
        #expect(noEndpoint?.message.contains("token_endpoint") == true)
        // Params of the wrong shape, the socket's way.
        let wrongShape = await agentError {
            try await agent.methods.dispatch(method: TokenGetMethod.name, params: .object(["account": .number(3)]),
                                             interaction: agent.interaction)
        }
        #expect(wrongShape?.kind == .invalidParams)
        #expect(await agentError { try await agent.get("other") }?.kind == .notFound)
    }
}
