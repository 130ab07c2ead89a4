import AgentProtocol
import OpenID
import Settings
import Tokens
import Vault

/// A refresh as a login account needs it: the refreshed ID token is
/// validated (OpenID Connect Core §12.2: same issuer, subject, audience),
/// an `invalid_grant` marks the account as needing a login and says the
/// exact command, and a rotated refresh token is never lost — even when
/// the new ID token fails its checks, the new refresh token is written
/// (the old one is dead at the provider) and the access token withheld.
/// Accounts stored with `token put` have no login settings: their refresh
/// is the plain one.
extension CoreServices {
    /// Called with the account's lock held and the vault open.
    func refreshChecked(_ latest: TokenSet, account: String, in open: UnlockedVault) async throws -> TokenSet {
        let settings = try? accounts.load(account)
        let refreshed: TokenSet
        do throws(TokenError) {
            refreshed = try await TokenRefresher(transport: http).refresh(latest, account: account)
        } catch {
            guard let settings else { throw error }
            if case .invalidGrant(_, let text) = error {
                markNeedsLogin(account, settings)
                throw AgentError(.serverError,
                                 "the provider refused the refresh token of \"\(account)\" (invalid_grant\(text.map { ": \($0)" } ?? "")): "
                                 + "sign in again with `passkey login \(account)`",
                                 details: ["errorCode": .string("invalid_grant"), "reloginRequired": .bool(true),
                                           "loginCommand": .string("passkey login \(account)")])
            }
            throw error
        }
        if let settings, let idToken = refreshed.idToken, idToken != latest.idToken {
            do {
                try await checkRefreshedIDToken(idToken, previous: latest.idToken, settings: settings, clientId: latest.clientId)
            } catch {
                var kept = refreshed
                kept.idToken = latest.idToken
                try open.write(Self.entryName(account), kept.encoded())
                markNeedsLogin(account, settings)
                throw error
            }
        }
        try open.write(Self.entryName(account), refreshed.encoded())
        if var settings, settings.needsLogin {
            settings.needsLogin = false
            try? accounts.save(settings, for: account)
        }
        return refreshed
    }

    private func checkRefreshedIDToken(_ idToken: String, previous: String?, settings: AccountSettings,
                                       clientId: String) async throws {
        let validator = IDTokenValidator(provider: openIDProvider(settings.issuer), clientId: clientId)
        if let previous = previous.flatMap({ try? IDTokenClaims(previouslyValidated: $0) }) {
            _ = try await validator.validateRefreshed(idToken, previous: previous)
            return
        }
        let claims = try await validator.validate(idToken, nonce: nil)
        if let subject = settings.subject, claims.subject != subject {
            throw OpenIDError.idToken(.subjectChanged)
        }
    }

    private func markNeedsLogin(_ account: String, _ settings: AccountSettings) {
        var marked = settings
        marked.needsLogin = true
        try? accounts.save(marked, for: account)
    }
}
