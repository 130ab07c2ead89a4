import AgentProtocol
import ArgumentParser
import FoundationEssentials
import StandardError

/// `passkey accounts`: every account in the vault, with where it signs in,
/// who it is, when its access token expires and whether it needs a login.
struct AccountsCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "List the accounts: issuer, subject, expiry, and whether one needs `passkey login` again. Never a token.",
        discussion: "While the vault is locked the accounts made by `passkey login` are listed from their settings, without expiry.")

    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let list = try await LockedVault.retryingAfterUnlock(backend) { () throws(AgentError) in
            try await backend.call(TokenListMethod.self, NoParams(), interaction: TerminalInteraction(pins: .interactive))
        }
        if runOptions.json { Output.json(list); return }
        if list.locked == true {
            // Issuer and subject are in the plaintext settings; expiry is in the vault.
            let rows = (list.lockedAccounts ?? []).map { entry in
                [entry.account, entry.issuer, entry.login.subject ?? "-", "(locked)", Self.state(entry.login, account: entry.account)]
            }
            if !rows.isEmpty { TableOutput.print(header: ["ACCOUNT", "ISSUER", "SUBJECT", "EXPIRES", "STATE"], rows: rows) }
            StandardError.writeLine("passkey: the vault is locked: expiry times, and accounts stored with `passkey token put`, "
                                    + "show after `passkey unlock`.")
            return
        }
        if list.tokens.isEmpty && list.damaged.isEmpty {
            Output.line("No accounts yet. Sign in with `passkey login ACCOUNT --issuer URL --client-id ID`.")
            return
        }
        let now = Int64(Date().timeIntervalSince1970)
        let rows = list.tokens.map { summary -> [String] in
            let state = summary.login.map { Self.state($0, account: summary.account) } ?? "stored (token put)"
            return [summary.account, summary.issuer, summary.login?.subject ?? summary.subject ?? "-",
                    TokenList.expiry(summary.expiresAt, now: now), state]
        }
        TableOutput.print(header: ["ACCOUNT", "ISSUER", "SUBJECT", "EXPIRES", "STATE"], rows: rows)
        for problem in list.damaged { StandardError.writeLine("passkey: \(problem)") }
    }

    static func state(_ login: AccountLogin, account: String) -> String {
        login.needsLogin ? "needs `passkey login \(account)`" : "ok (\(login.flow?.rawValue ?? "login"))"
    }
}
