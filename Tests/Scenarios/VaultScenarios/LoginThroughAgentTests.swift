import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `passkey login` end to end: the real CLI and agent against the real
/// devserver's authorization server on loopback, with a scripted person at
/// the browser. Each flow lands a validated token set in the vault, and
/// `token get` then refreshes it with the rotated refresh token.
@Suite(.ownThreads) struct LoginThroughAgentTests {
    /// A running agent with a fresh, unlocked vault.
    static func agent() throws -> VaultAgent {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        return agent
    }

    @Test("browser flow: login, token get, refresh with rotation; no token in any file")
    func browserFlow() throws {
        let provider = try LoginProvider.devserver(["--access-token-lifetime", "30"])
        let agent = try Self.agent()
        let login = try agent.harness.passkey(
            ["login", "work", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser"],
            extraEnvironment: provider.browserEnvironment(), timeout: 90)
        #expect(login.status == 0, "\(login.standardError)")
        #expect(login.standardOutput.contains("Signed in to \(provider.issuer)"))
        #expect(login.standardOutput.contains("alice"))
        #expect(login.standardError.contains(provider.issuer + "/v1/authorize?"), "the full authorization URL is printed")

        let first = try agent.passkey(["token", "get", "work"])
        #expect(first.status == 0, "\(first.standardError)")
        let access1 = first.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(jwtClaims(access1)?["sub"] as? String == "alice")

        // Tokens live 30 s: asking for 60 s of validity refreshes, twice in a
        // row — the second refresh works only with the refresh token the
        // first one rotated in (the devserver revokes the family on reuse).
        let second = try agent.passkey(["token", "get", "work", "--min-valid", "60"])
        #expect(second.status == 0, "\(second.standardError)")
        let access2 = second.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(access2 != access1)
        let third = try agent.passkey(["token", "get", "work", "--min-valid", "60", "--format", "header"])
        #expect(third.status == 0, "\(third.standardError)")
        #expect(third.standardOutput.hasPrefix("Authorization: Bearer "))
        #expect(!third.standardOutput.contains(access2))

        let idToken = try agent.passkey(["token", "get", "work", "--id-token"])
        #expect(idToken.status == 0, "\(idToken.standardError)")
        let id = idToken.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(jwtClaims(id)?["aud"] as? String == "cli")

        // The account remembers where it signs in; `accounts` shows it.
        let settings = try String(contentsOfFile: agent.harness.home + "/config/passkey-agent/accounts/work.toml", encoding: .utf8)
        #expect(settings.contains("issuer = \"\(provider.issuer)\""))
        #expect(settings.contains("subject = \"alice\""))
        #expect(settings.contains("flow = \"browser\""))
        let accounts = try agent.passkey(["accounts"])
        #expect(accounts.standardOutput.contains("work"), "\(accounts.standardError)")
        #expect(accounts.standardOutput.contains("ok (browser)"))

        let leaks = agent.filesContaining([access1, access2, id])
        #expect(leaks.isEmpty, "tokens found in \(leaks)")
    }

    @Test("device flow: the code is approved on the provider's page; the login lands")
    func deviceFlow() throws {
        let provider = try LoginProvider.devserver(["--device-interval", "1"])
        let agent = try Self.agent()
        let login = try RunningProcess(try ProgramPaths.built("passkey"),
                                       ["login", "tv", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "device"],
                                       environment: agent.harness.environment, directory: agent.harness.home, name: "login-device")
        try login.waitUntil("the device code is shown", timeout: 30) { login.standardError.contains("Waiting") }
        let complete = try #require(login.standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix("http") && $0.contains("user_code=") })
        #expect(complete.contains("user_code="))
        let approved = try provider.person(["--activate", String(complete)], scratch: agent.harness.home)
        #expect(approved.status == 0, "\(approved.standardError)")
        #expect(login.waitForExit(timeout: 60) == 0, "\(login.standardError)")
        #expect(login.standardOutput.contains("Signed in"))
        let token = try agent.passkey(["token", "get", "tv"])
        #expect(token.status == 0, "\(token.standardError)")
        #expect(jwtClaims(token.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))?["sub"] as? String == "alice")
    }

    @Test("paste flow: a redirect of another login is refused, the right one pasted from another terminal lands")
    func pasteFlow() throws {
        let provider = try LoginProvider.devserver()
        let agent = try Self.agent()
        let login = try RunningProcess(try ProgramPaths.built("passkey"),
                                       ["login", "remote", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "paste"],
                                       environment: agent.harness.environment, directory: agent.harness.home, name: "login-paste")
        try login.waitUntil("the authorization URL is shown", timeout: 30) { login.standardError.contains("Paste that whole address") }
        let url = try #require(login.standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix(provider.issuer + "/v1/authorize?") })
        let consent = try provider.person(["--print-redirect", url], scratch: agent.harness.home)
        #expect(consent.status == 0, "\(consent.standardError)")
        let redirect = consent.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(redirect.contains("code=") && redirect.contains("state="))

        // Another login's address (its state differs): refused, and the login waits on.
        var forged = URLComponents(string: redirect)!
        forged.queryItems = forged.queryItems!.map { $0.name == "state" ? URLQueryItem(name: "state", value: "not-this-login") : $0 }
        let refused = try agent.passkey(["login", "remote", "--complete"], input: forged.string! + "\n")
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("another login"))
        #expect(login.poll() == nil, "the login still waits")

        let pasted = try agent.passkey(["login", "remote", "--complete"], input: redirect + "\n")
        #expect(pasted.status == 0, "\(pasted.standardError)")
        #expect(login.waitForExit(timeout: 60) == 0, "\(login.standardError)")
        #expect(try agent.passkey(["token", "get", "remote"]).status == 0)
        #expect(agent.filesContaining([redirect]).isEmpty, "the code is nowhere on disk")
    }

    @Test("the provider's refusal ends the login with its error; nothing is stored")
    func accessDenied() throws {
        let provider = try LoginProvider.devserver()
        let agent = try Self.agent()
        let login = try agent.harness.passkey(
            ["login", "work", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser"],
            extraEnvironment: provider.browserEnvironment(deny: true), timeout: 90)
        #expect(login.status != 0)
        #expect(login.standardError.contains("access_denied"), "\(login.standardError)")
        let get = try agent.passkey(["token", "get", "work"])
        #expect(get.standardError.contains("no tokens are stored"))
    }

    @Test("a login as another subject is refused unless --force")
    func otherSubjectRefused() throws {
        let provider = try LoginProvider.devserver()
        let agent = try Self.agent()
        let arguments = ["login", "work", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser"]
        let alice = try agent.harness.passkey(arguments, extraEnvironment: provider.browserEnvironment(user: "alice"), timeout: 90)
        #expect(alice.status == 0, "\(alice.standardError)")
        let bob = try agent.harness.passkey(["login", "work"], extraEnvironment: provider.browserEnvironment(user: "bob"), timeout: 90)
        #expect(bob.status != 0)
        #expect(bob.standardError.contains("another user"), "\(bob.standardError)")
        let still = try agent.passkey(["token", "get", "work"])
        #expect(jwtClaims(still.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))?["sub"] as? String == "alice")
        let forced = try agent.harness.passkey(["login", "work", "--force"], extraEnvironment: provider.browserEnvironment(user: "bob"),
                                               timeout: 90)
        #expect(forced.status == 0, "\(forced.standardError)")
        let now = try agent.passkey(["token", "get", "work"])
        #expect(jwtClaims(now.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))?["sub"] as? String == "bob")
    }

    @Test("logout revokes: the kept refresh token then gets invalid_grant and the account needs a login; logout removes it")
    func logoutRevokes() throws {
        let provider = try LoginProvider.devserver(["--access-token-lifetime", "30"])
        let agent = try Self.agent()
        let login = try agent.harness.passkey(
            ["login", "work", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser"],
            extraEnvironment: provider.browserEnvironment(), timeout: 90)
        #expect(login.status == 0, "\(login.standardError)")

        let kept = try agent.passkey(["logout", "work", "--keep"])
        #expect(kept.status == 0, "\(kept.standardError)")
        #expect(kept.standardOutput.contains("Revoked the refresh token and access token"))
        let refused = try agent.passkey(["token", "get", "work", "--min-valid", "60"])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("invalid_grant"))
        #expect(refused.standardError.contains("passkey login work"), "the error gives the exact command")
        let accounts = try agent.passkey(["accounts"])
        #expect(accounts.standardOutput.contains("needs `passkey login work`"), "\(accounts.standardOutput)")

        let gone = try agent.passkey(["logout", "work", "--no-revoke"])
        #expect(gone.status == 0, "\(gone.standardError)")
        #expect(try agent.passkey(["token", "get", "work"]).standardError.contains("no tokens are stored"))
        #expect(!FileManager.default.fileExists(atPath: agent.harness.home + "/config/passkey-agent/accounts/work.toml"))
    }
}
