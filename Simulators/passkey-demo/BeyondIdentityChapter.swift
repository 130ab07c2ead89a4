import AgentProtocol
import FoundationEssentials

/// Chapter 5: Okta + Beyond Identity. The devserver's BI-like IdP binds a
/// passkey through a binding link; a login at the Okta-like server routed
/// to it (`--idp`) sends the browser to an invoke URL, which the demo hands
/// to `passkey invoke -` on standard input (never argv) as the URL-scheme
/// handler would. The agent asks the person to confirm through pinentry
/// before the key is touched — the demo's own pinentry answers OK, as the
/// person — proves the passkey, and the waiting login lands the tokens.
struct BeyondIdentityChapter {
    let world: DemoWorld
    let say: DemoNarrator
    static let realm = "/bi/v1/tenants/t1/realms/r1"

    private struct Identity: Decodable { let id: String }
    private struct BindingJob: Decodable { let credential_binding_link: String }

    func run() async throws(AgentError) -> String {
        try await world.ensureVault()
        let browser = DemoBrowser(transport: world.transport)
        let admin = world.origin + Self.realm
        say.step("The application's backend (with the devserver's secret): create identity Alice, then a binding job")
        let identity = try decode(Identity.self, try await browser.adminPOST(admin + "/identities", json: """
            {"identity":{"display_name":"Alice","traits":{"username":"alice","primary_email_address":"alice@example.test"}}}
            """, secret: world.server.apiSecret))
        let job = try decode(BindingJob.self, try await browser.adminPOST(
            admin + "/identities/\(identity.id)/credential-binding-jobs", json: #"{"job":{"delivery_method":"RETURN"}}"#,
            secret: world.server.apiSecret))
        let link = job.credential_binding_link
        say.detail("→ binding link \(DemoBrowser.withoutQuery(link))?…")
        say.step("passkey invoke -  (the binding link on standard input)")
        let bound = try await world.requireWithKey(["invoke", "-"], input: link + "\n")
        say.detail("→ \(bound.output.split(separator: "\n").first ?? "")")

        say.step("passkey login okta --issuer \(world.server.issuer) --client-id cli --idp 0oa-bi-dev --flow browser")
        let issuer = world.server.issuer
        let login = try world.start(["login", "okta", "--issuer", issuer, "--client-id", "cli", "--idp", "0oa-bi-dev",
                                     "--flow", "browser"])
        var address = ""
        try await login.waitUntil("the authorization URL is shown") {
            address = login.standardError.split(separator: "\n").map { $0.trimmingCharacters(in: " \t") }
                .first { $0.hasPrefix(issuer + "/v1/authorize?") } ?? ""
            return !address.isEmpty
        }
        let invoke = try await browser.followToApp(address)
        say.step("The browser follows Okta → the BI-like IdP → \(DemoBrowser.withoutQuery(invoke))?request=…")
        say.detail("the URL-scheme handler's command: passkey invoke -  (the invoke URL on standard input)")
        let confirmationsBefore = confirmations().count
        let handled = try await world.passkeyWithKey(["invoke", "-"], input: invoke + "\n")
        guard handled.status == 0 else { throw AgentError(.internal, "passkey invoke failed: \(handled.standardError)") }
        if world.demoAnswersPinentry {
            let asked = confirmations().dropFirst(confirmationsBefore)
            guard let shown = asked.last else {
                throw AgentError(.internal, "the agent touched the key without asking the person to confirm")
            }
            say.detail("the agent asked the person through pinentry before touching the key; the demo answered OK, as the person:")
            for line in shown.split(separator: "\n").prefix(4) { say.detail("  │ \(line)") }
        } else {
            say.detail("the agent asked you through your pinentry before touching the key, and you confirmed")
        }
        guard try await login.wait(what: "passkey login") == 0 else {
            throw AgentError(.internal, "the login routed to the IdP failed: \(login.standardError)")
        }
        say.detail("→ \(login.standardOutput.split(separator: "\n").first ?? "")")
        say.step("passkey token get okta")
        let access = try await world.require(["token", "get", "okta"]).output
        guard let claims = DemoClaims(jwt: access), claims.sub == "alice", claims.iss == issuer else {
            throw AgentError(.internal, "token get okta did not return the Okta-like server's access token for alice")
        }
        say.detail("→ \(access.prefix(24))…  (sub alice, iss the Okta-like server)")
        return "a passkey bound by link; the login routed to the BI-like IdP, the invoke confirmed by the person and proved on the key; "
            + "Okta's tokens for alice are in the vault"
    }

    /// What the person was asked to confirm so far (each CONFIRM's SETDESC, unescaped).
    private func confirmations() -> [String] {
        var shown: [String] = []
        var description = ""
        for line in DemoFiles.read(world.pinentryLog).split(separator: "\n") {
            if line.hasPrefix("SETDESC ") { description = String(line.dropFirst("SETDESC ".count)) }
            if line.hasPrefix("CONFIRM") {
                shown.append(description.replacing("%0A", with: "\n").replacing("%0D", with: "").replacing("%25", with: "%"))
            }
        }
        return shown
    }

    private func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8]) throws(AgentError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch {
            throw AgentError(.serverError, "the BI-like admin API answered an unexpected \(T.self)")
        }
    }
}
