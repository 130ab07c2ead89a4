import AgentProtocol
import ArgumentParser
import FoundationEssentials
import StandardError

/// `passkey accounts`: every account in the vault, with where it signs in,
/// who it is, when its access token expires and whether it needs a login.
struct AccountsCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "List the accounts: issuer, subject, expiry, and whether one needs `passkey login` again. Never a token.")

    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let list = try await LockedVault.retryingAfterUnlock(backend) { () throws(AgentError) in
            try await backend.call(TokenListMethod.self, NoParams(), interaction: TerminalInteraction(pins: .interactive))
        }
        if runOptions.json { Output.json(list); return }
        if list.tokens.isEmpty && list.damaged.isEmpty {
            Output.line("No accounts yet. Sign in with `passkey login ACCOUNT --issuer URL --client-id ID`.")
            return
        }
        let now = Int64(Date().timeIntervalSince1970)
        let rows = list.tokens.map { summary -> [String] in
            let state: String
            switch summary.login {
            case nil: state = "stored (token put)"
            case let login? where login.needsLogin: state = "needs `passkey login \(summary.account)`"
            case let login?: state = "ok (\(login.flow?.rawValue ?? "login"))"
            }
            return [summary.account, summary.issuer, summary.login?.subject ?? summary.subject ?? "-",
                    TokenList.expiry(summary.expiresAt, now: now), state]
        }
        TableOutput.print(header: ["ACCOUNT", "ISSUER", "SUBJECT", "EXPIRES", "STATE"], rows: rows)
        for problem in list.damaged { StandardError.writeLine("passkey: \(problem)") }
    }
}
