import AgentProtocol

/// Chapter 6: Okta Identity Engine (IDX) with the security key. User bob has
/// no key yet: the first `passkey login --via okta-idx` enrols one (a
/// WebAuthn registration through IDX's remediations); the second signs in
/// with it (an assertion the server checks against the enrolled key).
struct IDXChapter {
    let world: DemoWorld
    let say: DemoNarrator

    func run() async throws(AgentError) -> String {
        try await world.ensureVault()
        let issuer = world.server.issuer
        say.step("passkey login idx --via okta-idx --issuer \(issuer) --client-id cli --username bob --device \(world.device)")
        say.detail("identify → bob has no authenticator: enroll-authenticator (security key) → makeCredential → tokens")
        let enrolled = try await world.requireWithKey(["login", "idx", "--via", "okta-idx", "--issuer", issuer, "--client-id", "cli",
                                                "--username", "bob", "--device", world.device])
        say.detail("→ \(enrolled.output.split(separator: "\n").first ?? "")")
        let first = try await world.require(["token", "get", "idx"]).output
        guard let subject = DemoClaims(jwt: first)?.sub, DemoClaims(jwt: first)?.iss == issuer else {
            throw AgentError(.internal, "the enrolment's access token names no subject of \(issuer)")
        }

        say.step("passkey login idx --username bob --device \(world.device)  (the account remembers issuer, client and flow)")
        say.detail("identify → challenge-authenticator: the server asks for the enrolled key → getAssertion → tokens")
        let again = try await world.requireWithKey(["login", "idx", "--username", "bob", "--device", world.device])
        say.detail("→ \(again.output.split(separator: "\n").first ?? "")")
        let second = try await world.require(["token", "get", "idx"]).output
        guard second != first, DemoClaims(jwt: second)?.sub == subject else {
            throw AgentError(.internal, "signing in again did not give a new access token for the same user")
        }
        say.detail("→ a new access token for the same user (\(subject))")
        return "bob enrolled the key through IDX, then signed in with it: the second login's tokens, for the same subject, replaced the first in the vault"
    }
}
