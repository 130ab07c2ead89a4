/// `token.put`: stores an account's tokens (replacing any stored before).
public enum TokenPutMethod: AgentMethod {
    public static let name = "token.put"
    public static let answerWait = AnswerWait.machine
    public typealias Result = TokenSummary

    public struct Params: Codable, Sendable, Equatable {
        public var account: String
        /// The OAuth 2.0 token response (`access_token`, `token_type`,
        /// `expires_in`, `refresh_token`, `id_token`, `scope`) with `issuer`,
        /// `client_id` and `token_endpoint`.
        public var token: JSONValue

        public init(account: String, token: JSONValue) {
            self.account = account
            self.token = token
        }
    }
}

/// `token.list`: every stored account, without a single token.
public enum TokenListMethod: AgentMethod {
    public static let name = "token.list"
    public static let answerWait = AnswerWait.machine
    public typealias Params = NoParams
    public typealias Result = TokenList
}

public struct TokenList: Codable, Sendable, Equatable {
    public var tokens: [TokenSummary]
    /// Entries that could not be read, one message each (the others are listed).
    public var damaged: [String]
    /// The accounts among `damaged` whose entries open but whose tokens cannot
    /// be read; `token.delete` removes them. Absent when there are none.
    public var unreadableAccounts: [String]?
    /// `true` when there is no vault yet (`vault.init` makes one): nothing is
    /// stored, and nothing is locked. Absent when there is a vault.
    public var noVault: Bool?
    /// `true` when the vault is locked: `tokens` is then empty, and
    /// `lockedAccounts` lists the accounts made by `passkey login` from their
    /// plaintext settings (no unlock needed, as `gh auth status` works);
    /// expiry and accounts stored only with `token.put` need the vault.
    public var locked: Bool?
    public var lockedAccounts: [LoginAccount]?

    public init(tokens: [TokenSummary], damaged: [String], unreadableAccounts: [String]? = nil, noVault: Bool? = nil,
                locked: Bool? = nil, lockedAccounts: [LoginAccount]? = nil) {
        self.tokens = tokens
        self.damaged = damaged
        self.unreadableAccounts = unreadableAccounts
        self.noVault = noVault
        self.locked = locked
        self.lockedAccounts = lockedAccounts
    }
}

/// What an account's login settings say, readable while the vault is locked.
public struct LoginAccount: Codable, Sendable, Equatable {
    public var account: String
    public var issuer: String
    public var clientId: String
    public var login: AccountLogin

    public init(account: String, issuer: String, clientId: String, login: AccountLogin) {
        self.account = account
        self.issuer = issuer
        self.clientId = clientId
        self.login = login
    }
}

/// `token.delete`: forgets an account's tokens.
public enum TokenDeleteMethod: AgentMethod {
    public static let name = "token.delete"
    public static let answerWait = AnswerWait.machine
    public typealias Result = TokenDeleteResult

    public struct Params: Codable, Sendable, Equatable {
        public var account: String

        public init(account: String) { self.account = account }
    }
}

public struct TokenDeleteResult: Codable, Sendable, Equatable {
    public var account: String
    public var deleted: Bool

    public init(account: String, deleted: Bool) {
        self.account = account
        self.deleted = deleted
    }
}

/// One account as `token list` shows it. Never holds a token; the claims
/// come from the ID token (or a JWT access token) without a signature check.
public struct TokenSummary: Codable, Sendable, Equatable {
    public var account: String
    public var issuer: String
    public var clientId: String
    /// The ID token's `sub` (else a JWT access token's).
    public var subject: String?
    /// The registered claims of the ID token (else of a JWT access token).
    public var claims: TokenClaims?
    public var scope: String?
    public var tokenType: String
    /// Seconds since 1970; absent when the server gave no lifetime.
    public var expiresAt: Int64?
    public var hasRefreshToken: Bool
    public var hasIdToken: Bool
    public var updatedAt: Int64
    /// For an account made by `passkey login`: its flow, subject, and whether it needs a new login.
    public var login: AccountLogin?

    public init(account: String, issuer: String, clientId: String, subject: String?, claims: TokenClaims?,
                scope: String?, tokenType: String, expiresAt: Int64?, hasRefreshToken: Bool, hasIdToken: Bool,
                updatedAt: Int64) {
        self.account = account
        self.issuer = issuer
        self.clientId = clientId
        self.subject = subject
        self.claims = claims
        self.scope = scope
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.hasRefreshToken = hasRefreshToken
        self.hasIdToken = hasIdToken
        self.updatedAt = updatedAt
    }
}

/// A JWT's registered claims, decoded for display only: the signature is not
/// checked, so nothing here may be trusted for a decision.
public struct TokenClaims: Codable, Sendable, Equatable {
    public var subject: String?
    public var issuer: String?
    public var audience: [String]
    /// `exp`, seconds since 1970.
    public var expiresAt: Int64?
    /// `iat`, seconds since 1970.
    public var issuedAt: Int64?

    public init(subject: String?, issuer: String?, audience: [String], expiresAt: Int64?, issuedAt: Int64?) {
        self.subject = subject
        self.issuer = issuer
        self.audience = audience
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
    }
}
