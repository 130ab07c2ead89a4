/// Which passwordless.dev app a ceremony talks to. Each field overrides the
/// `[passwordless]` table of the agent's config.toml.
public struct PasswordlessOverrides: Codable, Sendable, Equatable {
    public var apiUrl: String?
    public var apiKey: String?
    public var rpId: String?
    public var origin: String?

    public init(apiUrl: String? = nil, apiKey: String? = nil, rpId: String? = nil, origin: String? = nil) {
        self.apiUrl = apiUrl
        self.apiKey = apiKey
        self.rpId = rpId
        self.origin = origin
    }
}

/// `passkey.register`: the passwordless.dev registration ceremony with a
/// register token from the app's backend; answers the verify token.
public enum PasskeyRegisterMethod: AgentMethod {
    public static let name = "passkey.register"
    public static let answerWait = AnswerWait.person

    public struct Params: Codable, Sendable, Equatable {
        public var token: String
        public var nickname: String?
        public var server: PasswordlessOverrides?
        public var device: DeviceChoice?
        public var pin: String?
        public var interactive: Bool?

        public init(token: String, nickname: String? = nil, server: PasswordlessOverrides? = nil,
                    device: DeviceChoice? = nil, pin: String? = nil, interactive: Bool? = nil) {
            self.token = token
            self.nickname = nickname
            self.server = server
            self.device = device
            self.pin = pin
            self.interactive = interactive
        }
    }

    /// The verify token for the app's backend (`/signin/verify`) and what was registered.
    public typealias Result = PasskeyRegistration
}

/// `passkey.signin`: sign in by alias, by user id, or with a discoverable
/// credential; answers the verify token.
public enum PasskeySignInMethod: AgentMethod {
    public static let name = "passkey.signin"
    public static let answerWait = AnswerWait.person

    public struct Params: Codable, Sendable, Equatable {
        /// Exactly one of `alias`, `userId`, `discoverable: true`.
        public var alias: String?
        public var userId: String?
        public var discoverable: Bool?
        /// With several discoverable credentials: which account (name, display name or user handle).
        public var user: String?
        public var server: PasswordlessOverrides?
        public var device: DeviceChoice?
        public var pin: String?
        public var interactive: Bool?

        public init(alias: String? = nil, userId: String? = nil, discoverable: Bool? = nil, user: String? = nil,
                    server: PasswordlessOverrides? = nil, device: DeviceChoice? = nil, pin: String? = nil,
                    interactive: Bool? = nil) {
            self.alias = alias
            self.userId = userId
            self.discoverable = discoverable
            self.user = user
            self.server = server
            self.device = device
            self.pin = pin
            self.interactive = interactive
        }
    }

    public typealias Result = PasskeySignIn
}
