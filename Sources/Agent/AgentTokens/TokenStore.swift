import AgentProtocol
import AgentRuntime
import Settings
import Tokens

extension TokensCapability {
    /// Writes `tokens` as the account's entry: the one path `token.put` and
    /// every login take (same atomic write, same account lock).
    package func store(_ tokens: TokenSet, account: String) async throws {
        try await vault.withUnlocked { open in
            try await self.tokens.accountLocks.withLock(account) {
                try open.write(Self.entryName(account), tokens.encoded())
            }
        }
    }
}

extension TokensCapability {
    /// `token.list`'s summaries with each login account's flow, subject and
    /// whether it needs a new login (from its settings file; a file that
    /// cannot be read leaves the account as a plain one).
    package func withLoginState(_ summaries: [TokenSummary]) -> [TokenSummary] {
        summaries.map { summary in
            guard let settings = try? accounts.load(summary.account) else { return summary }
            var marked = summary
            marked.login = AccountLogin(flow: settings.flow.flatMap(LoginFlow.init(rawValue:)), subject: settings.subject,
                                        needsLogin: settings.needsLogin)
            return marked
        }
    }

    /// `token.list` while the vault is locked: the accounts `passkey login` made.
    package func lockedList() -> TokenList {
        let accounts = accounts.all().map { entry in
            LoginAccount(account: entry.account, issuer: entry.settings.issuer, clientId: entry.settings.clientId,
                         login: AccountLogin(flow: entry.settings.flow.flatMap(LoginFlow.init(rawValue:)), subject: entry.settings.subject,
                                             needsLogin: entry.settings.needsLogin))
        }
        return TokenList(tokens: [], damaged: [], locked: true, lockedAccounts: accounts)
    }
}
