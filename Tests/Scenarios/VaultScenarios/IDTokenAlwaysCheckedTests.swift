import Foundation
import Testing
import TestSupport

/// The authorization request always asks for `openid`, so a provider may
/// answer with an ID token whatever the account's scopes say. It used to be
/// checked only when those scopes named `openid`: a login with `--scope
/// profile` stored whatever ID token came, unchecked — and a stored ID token
/// is later the baseline every refreshed one is compared with. Here the real
/// devserver signs an ID token for another login's nonce (the request the
/// person consents to has its nonce swapped): the agent must refuse it.
@Suite(.ownThreads) struct IDTokenAlwaysCheckedTests {
    @Test("a login whose scopes lack openid still checks the ID token that arrives: a wrong nonce stores nothing")
    func anIDTokenIsCheckedWithoutOpenIDInTheScopes() throws {
        let provider = try LoginProvider.devserver()
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        let login = try RunningProcess(try ProgramPaths.built("passkey"),
                                       ["login", "plain", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "paste",
                                        "--scope", "profile offline_access"],
                                       environment: agent.harness.environment, directory: agent.harness.home, name: "login-plain")
        try login.waitUntil("the authorization URL is shown", timeout: 30) { login.standardError.contains("Paste that whole address") }
        let url = try #require(login.standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix(provider.issuer + "/v1/authorize?") })
        #expect(url.contains("scope=openid%20profile%20offline_access"), "openid is always sent: \(url)")
        let forged = url.replacing(/nonce=[^&]*/, with: "nonce=another-logins-nonce")
        #expect(forged != url)
        let consent = try provider.person(["--print-redirect", forged], scratch: agent.harness.home)
        #expect(consent.status == 0, "\(consent.standardError)")
        let redirect = consent.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)

        _ = try agent.passkey(["login", "plain", "--complete"], input: redirect + "\n")
        let status = login.waitForExit(timeout: 60)
        #expect(status != nil && status != 0, "the login fails: \(login.standardError)")
        #expect(login.standardError.lowercased().contains("nonce"), "\(login.standardError)")
        let token = try agent.passkey(["token", "get", "plain"])
        #expect(token.status != 0, "nothing was stored: \(token.standardOutput)")
    }

    /// `token get --scope` is a refresh of its own whose answer is not
    /// stored. The ID token such a refresh brings is checked by nobody: the
    /// answer carries the stored one, which the login validated.
    @Test("a narrowed token get hands out the stored, checked ID token, not the one its own refresh brought")
    func aNarrowedRefreshHandsOutTheCheckedIDToken() throws {
        let provider = try LoginProvider.devserver()
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        let login = try agent.harness.passkey(["login", "alice", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser"],
                                              extraEnvironment: provider.browserEnvironment(user: "alice"), timeout: 90)
        #expect(login.status == 0, "\(login.standardError)")
        let stored = try agent.passkey(["token", "get", "alice", "--id-token"])
        #expect(stored.status == 0, "\(stored.standardError)")
        let checked = stored.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(checked.split(separator: ".").count == 3)
        // The devserver's refreshed ID token has no nonce (OIDC Core §12.2), so it differs from the login's.
        let narrowed = try agent.passkey(["token", "get", "alice", "--scope", "openid profile", "--id-token"])
        #expect(narrowed.status == 0, "\(narrowed.standardError)")
        #expect(narrowed.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == checked)
    }
}
