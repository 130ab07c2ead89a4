import AgentProtocol
import FoundationEssentials
import Tokens
import Vault

/// What the token handlers share: the refreshes in flight (one per
/// account) and the per-account write locks.
final class TokenState: Sendable {
    let flights = RefreshFlights<String, TokenSet>()
    let accountLocks = AccountLocks()
}

/// The token methods: `token.get`, `token.put`, `token.list`,
/// `token.delete`. Each account's token set is one vault entry named
/// `token:<account>`. No token is ever logged or put in an error.
extension CoreServices {
    func registerTokens(into table: inout MethodTable.Builder) {
        table.register(TokenGetMethod.self) { params, _ in
            try await self.accessToken(params)
        }
        table.register(TokenPutMethod.self) { params, _ in
            try Self.checkAccount(params.account)
            let document: [UInt8]
            do { document = Array(try JSONEncoder().encode(params.token)) } catch {
                throw AgentError(.invalidParams, "`token` is not a JSON object")
            }
            let tokens = try TokenDocument.tokenSet(from: document, now: TokenSet.now())
            try await self.vault.withUnlocked { open in
                try await self.tokens.accountLocks.withLock(params.account) {
                    try open.write(Self.entryName(params.account), tokens.encoded())
                }
            }
            return Self.summary(params.account, tokens)
        }
        table.register(TokenListMethod.self) { _, _ in
            // No vault: nothing stored and nothing to unlock (as `vault.status` says, without an error).
            guard self.vault.location.exists else { return TokenList(tokens: [], damaged: [], noVault: true) }
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
            return TokenList(tokens: summaries.sorted { $0.account < $1.account }, damaged: damaged,
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
    /// the vault before anyone gets the new access token.
    private func accessToken(_ params: TokenGetMethod.Params) async throws -> AccessTokenResult {
        try Self.checkAccount(params.account)
        let minValid = params.minValid ?? 60
        guard (0...(366 * 86_400)).contains(minValid) else {
            throw AgentError(.invalidParams, "`minValid` is a number of seconds from 0 to a year")
        }
        let account = params.account
        let cached = try await vault.withUnlocked { open in try Self.read(account, from: open) }
        if cached.isValid(for: minValid, now: TokenSet.now()) {
            return AccessTokenResult(accessToken: cached.accessToken, tokenType: cached.tokenType,
                                     expiresAt: cached.expiresAt, refreshed: false)
        }
        let refresher = TokenRefresher(transport: http)
        let fresh = try await tokens.flights.run(account) { [vault = self.vault, accountLocks = self.tokens.accountLocks] in
            // The vault stays open (its key unwiped) from the read to the
            // write, so a lock meanwhile cannot lose a rotated refresh token;
            // the account's lock keeps a `token put` from coming between.
            try await vault.withUnlocked { open in
                try await accountLocks.withLock(account) {
                    let latest = try Self.read(account, from: open)
                    if latest.isValid(for: minValid, now: TokenSet.now()) { return latest }
                    let refreshed = try await refresher.refresh(latest, account: account)
                    try open.write(Self.entryName(account), refreshed.encoded())
                    return refreshed
                }
            }
        }
        return AccessTokenResult(accessToken: fresh.accessToken, tokenType: fresh.tokenType,
                                 expiresAt: fresh.expiresAt, refreshed: true)
    }

    static let entryPrefix = "token:"

    static func entryName(_ account: String) -> String { entryPrefix + account }

    static func read(_ account: String, from open: UnlockedVault) throws -> TokenSet {
        let payload: [UInt8]
        do throws(VaultError) {
            payload = try open.read(entryName(account))
        } catch .entryNotFound {
            throw AgentError(.notFound, "no tokens are stored for \"\(account)\": store them with `passkey token put \(account)`")
        }
        return try TokenSet(decoding: payload, account: account)
    }

    /// Account names: 1–128 characters, no control characters, no spaces at the ends.
    static func checkAccount(_ account: String) throws(AgentError) {
        guard !account.isEmpty, account.count <= 128 else {
            throw AgentError(.invalidInput, "an account name has 1 to 128 characters")
        }
        guard !account.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
              account.first?.isWhitespace == false, account.last?.isWhitespace == false else {
            throw AgentError(.invalidInput, "an account name has no control characters and no spaces at its ends")
        }
    }

    static func summary(_ account: String, _ tokens: TokenSet) -> TokenSummary {
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
