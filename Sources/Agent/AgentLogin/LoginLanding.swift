import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import FoundationEssentials
import OpenID
import Settings
import Tokens

/// The end of every login flow: the token response is validated (the ID
/// token per OpenID Connect Core §3.1.3.7), checked against the account's
/// previous subject, and only then written — through the same vault write,
/// under the same account lock, as `token.put` — and the account's settings
/// saved. Nothing is written before validation.
extension LoginCapability {
    package func finish(_ plan: LoginPlan, login: PendingLogin,
                tokens obtain: @escaping @Sendable () async throws -> (TokenSet, nonce: String?)) async throws -> LoginResult {
        defer {
            // The waiter may come after the end: keep the finished login a minute.
            Task { [logins] in
                try? await Task.sleep(for: .seconds(60))
                logins.remove(login)
            }
        }
        let (tokens, nonce) = try await Self.withDeadline(plan.timeout, account: plan.account) { try await obtain() }
        return try await land(tokens, nonce: nonce, plan: plan)
    }

    /// Validates and stores a token set a flow obtained (`nonce`: the one
    /// the flow sent, nil when it sent none), and saves the account's settings.
    package func land(_ obtained: TokenSet, nonce: String?, plan: LoginPlan) async throws -> LoginResult {
        var tokens = obtained
        tokens.clientSecret = plan.clientSecret
        let claims = try await validatedClaims(tokens, plan: plan, nonce: nonce)
        if let previous = plan.previousSubject, let subject = claims?.subject, previous != subject, !plan.force {
            throw AgentError(.denied, "the provider signed in another user than \"\(plan.account)\" belongs to "
                             + "(its subject changed); nothing was stored. Use another account name, or --force to replace it",
                             details: ["errorCode": .string("subject_mismatch")])
        }
        try await tokenCapability.store(tokens, account: plan.account)
        let settings = AccountSettings(issuer: plan.issuer, clientId: plan.clientId, scopes: plan.scopes,
                                       flow: plan.flow.rawValue, subject: claims?.subject ?? plan.previousSubject,
                                       deviceAuthorizationEndpoint: plan.endpoints.deviceAuthorization,
                                       revocationEndpoint: plan.endpoints.revocation, idp: plan.idp, username: plan.username)
        try accounts.save(settings, for: plan.account)
        return LoginResult(account: plan.account, issuer: plan.issuer, subject: claims?.subject,
                           displayName: claims.flatMap { $0.name ?? $0.preferredUsername ?? $0.email },
                           flow: plan.flow, scope: tokens.scope, expiresAt: tokens.expiresAt)
    }

    /// The ID token's claims once it passes every check. An ID token that
    /// arrives is always checked, whatever the account's scopes say: the
    /// authorization request always sends `openid`, so a provider may answer
    /// with one, and one stored unchecked would later be trusted as the
    /// baseline of every refreshed ID token (and its subject as the user's).
    /// nil only when none arrived and the account's scopes lack `openid`
    /// (plain OAuth 2.0: nothing to check).
    private func validatedClaims(_ tokens: TokenSet, plan: LoginPlan, nonce: String?) async throws -> IDTokenClaims? {
        guard let idToken = tokens.idToken else {
            guard plan.scopes.contains("openid") else { return nil }
            throw AgentError(.serverError, "\(plan.issuer) sent no ID token although the scope has `openid`; nothing was stored",
                             details: ["errorCode": .string("invalid_id_token")])
        }
        let validator = IDTokenValidator(provider: plan.provider, clientId: plan.clientId)
        return try await validator.validate(idToken, nonce: nonce)
    }

    /// `body`, unless `limit` passes first (then `timeout`, and `body` is cancelled).
    package static func withDeadline<T: Sendable>(_ limit: Duration, account: String,
                                          _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw AgentError(.timeout, "the login of \"\(account)\" was not completed in time; start it again with `passkey login \(account)`")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }
}
