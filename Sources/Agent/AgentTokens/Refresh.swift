import AgentProtocol
import AgentRuntime
import OpenID
import Settings
import Tokens
import Vault

/// What a refresh is for: the account's stored token set, or an access
/// token narrowed to fewer scopes (RFC 6749 §6, `token get --scope`) that is
/// handed out without being stored — the stored access token keeps the
/// account's full scope.
package enum RefreshPurpose: Sendable, Equatable {
    case stored
    case narrowed(scope: String)
}

/// The one refresh of the agent. Every refresh:
/// - is made with the account's lock held and the vault open, so a lock
///   meanwhile cannot lose a rotated refresh token and a `token put` cannot
///   come between;
/// - saves a refresh token the provider rotated — even when the rest fails
///   its checks (the old one is dead at the provider);
/// - for a login account, turns `invalid_grant` into "sign in again with
///   `passkey login ACCOUNT`" and marks the account as needing a login.
/// A `.stored` refresh of a login account also validates the refreshed ID
/// token (OpenID Connect Core §12.2: same issuer, subject, audience) and
/// withholds the access token when it fails. A `.narrowed` one stores only
/// the rotated refresh token and answers with the stored ID token: the one
/// it brings was checked by nobody. Accounts stored with `token put` have no
/// login settings: their refresh is the plain one.
extension TokensCapability {
    func refresh(_ latest: TokenSet, account: String, in open: UnlockedVault, for purpose: RefreshPurpose) async throws -> TokenSet {
        // A login account's settings decide the checks below: a settings file
        // that cannot be read stops the refresh rather than make the account
        // a plain one whose new ID token nobody checks. (A name too long for a
        // settings file has none: `passkey login` could not have written one.)
        let settings = try loginSettings(account)
        let refreshed: TokenSet
        do throws(TokenError) {
            refreshed = try await TokenRefresher(transport: http).refresh(latest, account: account, scope: purpose.scope)
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
        if case .narrowed = purpose {
            if refreshed.refreshToken != latest.refreshToken {
                var kept = latest
                kept.refreshToken = refreshed.refreshToken
                kept.updatedAt = refreshed.updatedAt
                try open.write(Self.entryName(account), kept.encoded())
            }
            var answered = refreshed
            answered.idToken = latest.idToken
            return answered
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

    /// The account's login settings; nil for an account stored with `token put`.
    private func loginSettings(_ account: String) throws(AccountSettingsError) -> AccountSettings? {
        do {
            return try accounts.load(account)
        } catch .nameTooLong {
            return nil
        }
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

extension RefreshPurpose {
    var scope: String? {
        if case .narrowed(let scope) = self { return scope }
        return nil
    }
}
