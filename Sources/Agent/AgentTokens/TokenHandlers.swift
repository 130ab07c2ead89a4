import AgentProtocol
import AgentRuntime
import FoundationEssentials
import OpenID
import Tokens
import Vault

/// What the token handlers share: the refreshes in flight (one per
/// account) and the per-account write locks.
package final class TokenState: Sendable {
    package let flights = RefreshFlights<String, TokenSet>()
    package let accountLocks = AccountLocks()
}

/// The token methods: `token.get`, `token.put`, `token.list`,
/// `token.delete`. Each account's token set is one vault entry named
/// `token:<account>`. No token is ever logged or put in an error.
extension TokensCapability {
    package func registerTokens(into table: inout MethodTable.Builder) {
        table.register(TokenGetMethod.self) { params, _ in
            try await self.accessToken(params)
        }
        table.registerFastPath(TokenGetMethod.self, read: TokenGetWire.readRequest) { params in
            self.keptAnswer(params)
        }
        table.register(TokenPutMethod.self) { params, _ in
            try Self.checkAccount(params.account)
            let document: [UInt8]
            do { document = Array(try JSONEncoder().encode(params.token)) } catch {
                throw AgentError(.invalidParams, "`token` is not a JSON object")
            }
            let tokens = try TokenDocument.tokenSet(from: document, now: TokenSet.now())
            try await self.store(tokens, account: params.account)
            return Self.summary(params.account, tokens)
        }
        table.register(TokenListMethod.self) { _, _ in
            // No vault: nothing stored and nothing to unlock (as `vault.status` says, without an error).
            guard self.vault.location.exists else { return TokenList(tokens: [], damaged: [], noVault: true) }
            // Locked: what the plaintext login settings say, without asking for an unlock.
            guard self.vault.isUnlocked else { return self.lockedList() }
            let listings = try await self.vault.withUnlocked { open in
                try open.entries(withPrefix: Self.entryPrefix)
            }
            var summaries: [TokenSummary] = []
            var damaged: [String] = []
            var unreadable: [String] = []
            for listing in listings {
                switch listing {
                case .entry(let name, let payload):
                    let account = String(name.dropFirst(Self.entryPrefix.count))
                    do throws(TokenError) {
                        summaries.append(Self.summary(account, try TokenSet(decoding: payload, account: account)))
                    } catch {
                        damaged.append(error.description + ", or forget them with `passkey token rm \(account)`")
                        unreadable.append(account)
                    }
                case .damaged(let error):
                    // Its account's name is inside the damaged record: `token.delete` still
                    // removes it by name (it only needs the file), and the message names the file.
                    damaged.append(error.description)
                }
            }
            return TokenList(tokens: self.withLoginState(summaries.sorted { $0.account < $1.account }), damaged: damaged,
                             unreadableAccounts: unreadable.isEmpty ? nil : unreadable.sorted())
        }
        table.register(TokenDeleteMethod.self) { params, _ in
            try Self.checkAccount(params.account)
            try await self.vault.withUnlocked { open in
                try await self.tokens.accountLocks.withLock(params.account) {
                    do throws(VaultError) {
                        try open.remove(Self.entryName(params.account))
                    } catch .entryNotFound {
                        throw AgentError(.notFound, "no tokens are stored for \"\(params.account)\" (see `passkey token list`)")
                    }
                }
            }
            return TokenDeleteResult(account: params.account, deleted: true)
        }
    }

    /// The cached access token when it stays valid for `minValid` seconds;
    /// otherwise one refresh, shared by every concurrent request for the
    /// account, whose result (with a rotated refresh token) is written to
    /// the vault before anyone gets the new access token. With a narrower
    /// `scope`, a refresh of its own whose access token is not stored
    /// (the same refresh, `RefreshPurpose.narrowed`).
    private func accessToken(_ params: TokenGetMethod.Params) async throws -> AccessTokenResult {
        try Self.checkAccount(params.account)
        let minValid = params.minValid ?? TokenGetMethod.defaultMinValid
        guard (0...(366 * 86_400)).contains(minValid) else {
            throw AgentError(.invalidParams, "`minValid` is a number of seconds from 0 to a year")
        }
        let account = params.account
        let cached = try await vault.withUnlocked { open in try Self.read(account, from: open) }
        if params.idToken == true, cached.idToken == nil {
            throw AgentError(.notFound, "no ID token is stored for \"\(account)\" (its login asked for no `openid` scope)")
        }
        if let scope = params.scope, !Self.sameScopes(scope, cached.scope) {
            try LoginRequestRules.checkScopes(scope.split(separator: " ").map(String.init))
            let narrowed = try await vault.withUnlocked { open in
                try await self.tokens.accountLocks.withLock(account) {
                    try await self.refresh(try Self.read(account, from: open), account: account, in: open, for: .narrowed(scope: scope))
                }
            }
            return Self.result(narrowed, refreshed: true, idToken: params.idToken == true)
        }
        if cached.isValid(for: minValid, now: TokenSet.now()) {
            return Self.result(cached, refreshed: false, idToken: params.idToken == true)
        }
        let fresh = try await tokens.flights.run(account) { [self] in
            // The vault stays open (its key unwiped) from the read to the
            // write, so a lock meanwhile cannot lose a rotated refresh token;
            // the account's lock keeps a `token put` from coming between.
            try await self.vault.withUnlocked { open in
                try await self.tokens.accountLocks.withLock(account) {
                    let latest = try Self.read(account, from: open)
                    if latest.isValid(for: minValid, now: TokenSet.now()) { return latest }
                    return try await self.refresh(latest, account: account, in: open, for: .stored)
                }
            }
        }
        return Self.result(fresh, refreshed: true, idToken: params.idToken == true)
    }

    /// `token.get`'s answer, encoded, when the vault is unlocked and the
    /// account's entry is in memory and unchanged (UnlockedVault.cachedDerived),
    /// its access token good for `minValid`, and neither another scope nor the
    /// ID token asked: what `accessToken` would answer, with no file read, no
    /// decoding and no task. Anything else — and every error — is nil, for
    /// `accessToken` to handle.
    private func keptAnswer(_ params: TokenGetMethod.Params) -> [UInt8]? {
        let minValid = params.minValid ?? TokenGetMethod.defaultMinValid
        guard params.scope == nil, params.idToken != true, (0...(366 * 86_400)).contains(minValid),
              (try? Self.checkAccount(params.account)) != nil, vault.isUnlocked,
              let kept = try? vault.withUnlockedNow({ open in
                  try open.cachedDerived(Self.entryName(params.account)) { payload in KeptTokenAnswer(payload, account: params.account) }
              }),
              kept.isValid(for: minValid, now: TokenSet.now()) else { return nil }
        return kept.result
    }

    package static func result(_ tokens: TokenSet, refreshed: Bool, idToken: Bool) -> AccessTokenResult {
        AccessTokenResult(accessToken: tokens.accessToken, tokenType: tokens.tokenType, expiresAt: tokens.expiresAt,
                          refreshed: refreshed, scope: tokens.scope, idToken: idToken ? tokens.idToken : nil)
    }

    /// Whether two space-separated scope lists name the same scopes.
    package static func sameScopes(_ asked: String, _ stored: String?) -> Bool {
        Set(asked.split(separator: " ")) == Set((stored ?? "").split(separator: " "))
    }

    package static let entryPrefix = "token:"

    package static func entryName(_ account: String) -> String { entryPrefix + account }

    package static func read(_ account: String, from open: UnlockedVault) throws -> TokenSet {
        let payload: [UInt8]
        do throws(VaultError) {
            payload = try open.read(entryName(account))
        } catch .entryNotFound {
            // After `passkey logout`, or a name never used: signing in is what a person wants.
            throw AgentError(.notFound, "no tokens are stored for \"\(account)\": sign in with `passkey login \(account)` "
                             + "(its first login also needs --issuer URL --client-id ID), or store tokens with `passkey token put \(account)`",
                             details: ["loginCommand": .string("passkey login \(account)")])
        }
        return try TokenSet(decoding: payload, account: account)
    }

    /// Account names: 1–128 characters, no control characters, no spaces at the ends.
    package static func checkAccount(_ account: String) throws(AgentError) {
        guard !account.isEmpty, account.count <= 128 else {
            throw AgentError(.invalidInput, "an account name has 1 to 128 characters")
        }
        guard !account.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
              account.first?.isWhitespace == false, account.last?.isWhitespace == false else {
            throw AgentError(.invalidInput, "an account name has no control characters and no spaces at its ends")
        }
    }

    package static func summary(_ account: String, _ tokens: TokenSet) -> TokenSummary {
        let claims = tokens.claims
        return TokenSummary(account: account, issuer: tokens.issuer, clientId: tokens.clientId, subject: claims?.subject,
                            claims: claims.map { TokenClaims(subject: $0.subject, issuer: $0.issuer, audience: $0.audience,
                                                             expiresAt: $0.expiresAt, issuedAt: $0.issuedAt) },
                            scope: tokens.scope,
                            tokenType: tokens.tokenType, expiresAt: tokens.expiresAt,
                            hasRefreshToken: tokens.refreshToken != nil, hasIdToken: tokens.idToken != nil,
                            updatedAt: tokens.updatedAt)
    }
}

/// A stored token set's `token.get` answer (not refreshed, no ID token),
/// encoded once per version of its vault entry and kept beside the entry
/// while the vault is unlocked: the fast path then only checks the expiry.
/// Zeroed with the entry (EntryCache).
package struct KeptTokenAnswer: KeptBesideEntry {
    package var result: [UInt8]
    package let expiresAt: Int64?

    package init?(_ payload: [UInt8], account: String) {
        guard let tokens = try? TokenSet(decoding: payload, account: account),
              let result = try? JSONEncoder().encode(TokensCapability.result(tokens, refreshed: false, idToken: false)) else { return nil }
        self.result = Array(result)
        expiresAt = tokens.expiresAt
    }

    package func isValid(for seconds: Int, now: Int64) -> Bool { TokenSet.isValid(expiringAt: expiresAt, for: seconds, now: now) }

    package mutating func zero() { DataKey.zero(&result) }
}
