import AgentProtocol

/// Chapter 3: `passkey login` at the devserver's Okta-like authorization
/// server. The agent owns the loopback callback and the PKCE verifier; the
/// demo plays the person at the browser (the sign-in page, its form, the
/// redirect to the callback). Then `token get`, and refreshes that rotate
/// the refresh token: the devserver revokes the whole family when a spent
/// refresh token comes back, so a second refresh in a row succeeds only
/// with the token the first one rotated in.
struct LoginChapter {
    let world: DemoWorld
    let say: DemoNarrator

    func run() async throws(AgentError) -> String {
        let access1 = try await login(narrated: true)

        say.step("passkey token get work --min-valid 300  (the demo's tokens live 120 s: the agent refreshes)")
        let access2 = try await world.require(["token", "get", "work", "--min-valid", "300"]).output
        guard access2 != access1, DemoClaims(jwt: access2)?.sub == "alice" else {
            throw AgentError(.internal, "the refresh did not give a new access token for alice")
        }
        say.detail("→ a new access token; the rotated refresh token was saved before it was handed out")
        say.step("passkey token get work --min-valid 300  (again: only the rotated refresh token works now)")
        let access3 = try await world.require(["token", "get", "work", "--min-valid", "300"]).output
        guard access3 != access2, DemoClaims(jwt: access3)?.sub == "alice" else {
            throw AgentError(.internal, "the second refresh did not give a new access token")
        }
        say.detail("→ accepted: the server revokes the whole family when a spent refresh token is presented")
        world.lastAccessToken = access3
        let reuse = try await DemoRefreshReuse(world: world, say: say).run()
        return "login landed tokens for alice from \(world.server.issuer); two refreshes in a row each gave a new access token; "
            + reuse
    }

    /// `passkey login work` with the demo at the browser; the first access token. Quiet for a chapter run alone.
    @discardableResult
    func login(narrated: Bool) async throws(AgentError) -> String {
        try await world.ensureVault()
        let issuer = world.server.issuer
        if narrated {
            say.step("passkey login work --issuer \(issuer) --client-id cli --flow browser")
            say.detail("the agent listens on a one-shot loopback port and keeps the PKCE verifier, state and nonce")
        }
        let login = try world.start(["login", "work", "--issuer", issuer, "--client-id", "cli", "--flow", "browser"])
        var address = ""
        try await login.waitUntil("the authorization URL is shown") {
            let lines = login.standardError.split(separator: "\n").map { $0.trimmingCharacters(in: " \t") }
            address = lines.first { $0.hasPrefix(issuer + "/v1/authorize?") } ?? ""
            return !address.isEmpty
        }
        let browser = DemoBrowser(transport: world.transport)
        let callback = try await browser.consent(address, user: "alice")
        if narrated {
            say.step("The person at the browser: \(DemoBrowser.withoutQuery(address))?… → sign in as alice → Allow")
            say.detail("→ the provider redirects to \(DemoBrowser.withoutQuery(callback)) (the agent's listener)")
        }
        let landed = try await browser.visit(callback)
        guard try await login.wait(what: "passkey login") == 0 else {
            throw AgentError(.internal, "passkey login failed: \(login.standardError)")
        }
        if narrated {
            say.detail("→ callback page HTTP \(landed); \(login.standardOutput.split(separator: "\n").first ?? "")")
            say.step("passkey token get work")
        }
        let access = try await world.require(["token", "get", "work"]).output
        guard let claims = DemoClaims(jwt: access), claims.sub == "alice", claims.iss == issuer else {
            throw AgentError(.internal, "token get did not return an access token for alice from \(issuer)")
        }
        if narrated { say.detail("→ \(access.prefix(24))…  (sub alice, iss \(issuer))") }
        world.loggedIn = true
        world.lastAccessToken = access
        return access
    }
}

extension StringProtocol {
    /// Without the given characters at either end.
    func trimmingCharacters(in characters: String) -> String {
        let trimmed = drop { characters.contains($0) }
        return String(String(trimmed).reversed().drop { characters.contains($0) }.reversed())
    }
}
