/// `forward.open`: a second, restricted socket for `ssh -R` (docs/PROTOCOL.md,
/// "Forwarding"). Served only on the agent's own socket, never through a forward.
public enum ForwardOpenMethod: AgentMethod {
    public static let name = "forward.open"
    public static let answerWait = AnswerWait.person
    public typealias Result = ForwardInfo

    public struct Params: Codable, Sendable, Equatable {
        /// The accounts whose tokens `token.get` may return; at least one.
        public var accounts: [String]
        /// The methods served (default `token.get` and `agent.status`).
        public var allow: [String]?
        /// `always` (default), `first` (per account) or `never`.
        public var confirm: ForwardConfirm?
        /// Seconds until the socket closes by itself; nil or 0: until closed.
        public var ttlSeconds: Int?

        public init(accounts: [String], allow: [String]? = nil, confirm: ForwardConfirm? = nil, ttlSeconds: Int? = nil) {
            self.accounts = accounts
            self.allow = allow
            self.confirm = confirm
            self.ttlSeconds = ttlSeconds
        }
    }
}

/// `forward.list`: the forwarding sockets open now.
public enum ForwardListMethod: AgentMethod {
    public static let name = "forward.list"
    public static let answerWait = AnswerWait.person
    public typealias Params = NoParams
    public typealias Result = ForwardList
}

/// `forward.close`: closes one forwarding socket and removes its file.
public enum ForwardCloseMethod: AgentMethod {
    public static let name = "forward.close"
    public static let answerWait = AnswerWait.person
    public typealias Result = ForwardInfo

    public struct Params: Codable, Sendable, Equatable {
        public var id: Int
        public init(id: Int) { self.id = id }
    }
}

/// When a forwarded `token.get` asks the person at the agent's desktop.
public enum ForwardConfirm: String, Codable, Sendable, CaseIterable {
    case always, first, never
}

public struct ForwardInfo: Codable, Sendable, Equatable {
    public var id: Int
    public var path: String
    public var accounts: [String]
    public var allow: [String]
    public var confirm: ForwardConfirm
    /// Seconds since 1970; absent when it stays open until closed.
    public var expiresAt: Int64?

    public init(id: Int, path: String, accounts: [String], allow: [String], confirm: ForwardConfirm, expiresAt: Int64?) {
        self.id = id
        self.path = path
        self.accounts = accounts
        self.allow = allow
        self.confirm = confirm
        self.expiresAt = expiresAt
    }
}

public struct ForwardList: Codable, Sendable, Equatable {
    public var forwards: [ForwardInfo]
    public init(forwards: [ForwardInfo]) { self.forwards = forwards }
}
