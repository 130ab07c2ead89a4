import AgentProtocol
import Tokens

/// `token get --scope`: an access token narrowed to fewer scopes (RFC 6749
/// §6), made by a refresh of its own and handed out without being stored —
/// the stored access token keeps the account's full scope. A refresh token
/// the provider rotates meanwhile is saved, or the next refresh would fail.
/// An ID token this refresh brings is not handed out: it was checked by
/// nobody. The answer carries the stored one, which its login (or a checked
/// refresh) validated.
extension CoreServices {
    func narrowedAccessToken(_ account: String, scope: String, idToken: Bool) async throws -> AccessTokenResult {
        let refresher = TokenRefresher(transport: http)
        let narrowed = try await vault.withUnlocked { open in
            try await self.tokens.accountLocks.withLock(account) {
                let latest = try Self.read(account, from: open)
                let narrowed = try await refresher.refresh(latest, account: account, scope: scope)
                if narrowed.refreshToken != latest.refreshToken {
                    var kept = latest
                    kept.refreshToken = narrowed.refreshToken
                    kept.updatedAt = narrowed.updatedAt
                    try open.write(Self.entryName(account), kept.encoded())
                }
                var answered = narrowed
                answered.idToken = latest.idToken
                return answered
            }
        }
        return Self.result(narrowed, refreshed: true, idToken: idToken)
    }
}
