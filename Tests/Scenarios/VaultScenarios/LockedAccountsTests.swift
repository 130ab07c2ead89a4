import Foundation
import Testing
import TestSupport

/// What a person sees about their accounts without unlocking (issue 26's
/// rough edges): `passkey accounts` and `token list` answer from the
/// plaintext login settings while the vault is locked, and `token get` for
/// an account with no tokens (after logout, or never signed in) says
/// `passkey login`.
@Suite(.ownThreads) struct LockedAccountsTests {
    @Test("accounts and token list answer while locked: issuer and subject from the settings, expiry marked locked")
    func accountsWhileLocked() throws {
        let provider = try LoginProvider.devserver()
        let agent = try LoginThroughAgentTests.agent()
        // A name with a space, a slash and a non-ASCII letter: its settings
        // file name is percent-encoded, and the listing decodes it back.
        let account = "team lead/ä"
        let login = try agent.harness.passkey(
            ["login", account, "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser"],
            extraEnvironment: provider.browserEnvironment(), timeout: 90)
        #expect(login.status == 0, "\(login.standardError)")
        try agent.put("plain", #"{"access_token":"at-plain","token_type":"Bearer","expires_in":3600,"issuer":"https://id.example.org","client_id":"c","token_endpoint":"https://id.example.org/token"}"#)
        #expect(try agent.passkey(["lock"]).status == 0)

        let accounts = try agent.passkey(["accounts"])
        #expect(accounts.status == 0, "\(accounts.standardError)")
        let row = accounts.standardOutput.split(separator: "\n").first { $0.hasPrefix(account) }.map(String.init) ?? ""
        #expect(row.contains(provider.issuer) && row.contains("alice") && row.contains("(locked)") && row.contains("ok (browser)"),
                "\(accounts.standardOutput)")
        #expect(!accounts.standardOutput.contains("plain"), "a token-put account is only in the vault")
        #expect(accounts.standardError.contains("the vault is locked"))

        let list = try agent.passkey(["token", "list"])
        #expect(list.status == 0, "\(list.standardError)")
        #expect(list.standardOutput.contains(account) && list.standardOutput.contains("(locked)"), "\(list.standardOutput)")

        let json = try agent.passkey(["token", "list", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
        #expect(object?["locked"] as? Bool == true)
        let first = (object?["lockedAccounts"] as? [[String: Any]])?.first
        #expect(first?["account"] as? String == account)
        #expect((first?["login"] as? [String: Any])?["subject"] as? String == "alice")

        // Still locked: nothing was unlocked to answer.
        #expect(try agent.passkey(["token", "get", account]).status != 0)
    }

    @Test("token get after logout, and for an account never used, says passkey login")
    func tokenGetHintsLogin() throws {
        let provider = try LoginProvider.devserver()
        let agent = try LoginThroughAgentTests.agent()
        let login = try agent.harness.passkey(
            ["login", "work", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser"],
            extraEnvironment: provider.browserEnvironment(), timeout: 90)
        #expect(login.status == 0, "\(login.standardError)")
        #expect(try agent.passkey(["logout", "work"]).status == 0)
        for account in ["work", "never-used"] {
            let get = try agent.passkey(["token", "get", account])
            #expect(get.status != 0)
            #expect(get.standardError.contains("no tokens are stored"))
            #expect(get.standardError.contains("sign in with `passkey login \(account)`"), "\(get.standardError)")
        }
    }
}
