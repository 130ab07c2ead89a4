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

/// `passkey.register`'s result: the verify token and what was registered.
public struct PasskeyRegistration: Sendable, Codable, Equatable {
    /// The `verify_…` token for `/signin/verify`.
    public var token: String
    public var credentialId: String
    public var rpId: String
    public var origin: String
    public var nickname: String?
    /// Stored on the key as a discoverable credential (credProps.rk).
    public var residentKey: Bool?
    public var transports: [String]
    public var authenticatorAttachment: String?

    public init(token: String, credentialId: String, rpId: String, origin: String, nickname: String?,
                residentKey: Bool?, transports: [String], authenticatorAttachment: String?) {
        self.token = token
        self.credentialId = credentialId
        self.rpId = rpId
        self.origin = origin
        self.nickname = nickname
        self.residentKey = residentKey
        self.transports = transports
        self.authenticatorAttachment = authenticatorAttachment
    }
}

/// `passkey.signin`'s result: the verify token and the credential used.
public struct PasskeySignIn: Sendable, Codable, Equatable {
    /// The `verify_…` token for `/signin/verify`.
    public var token: String
    public var credentialId: String
    /// The user handle (base64url) the key returned, for discoverable credentials.
    public var userHandle: String?
    public var rpId: String
    public var origin: String
    /// The user signed in as: the user handle as text (passwordless.dev's
    /// user id), when the key returned one that is printable UTF-8.
    public var userId: String?
    /// How many credentials the server named for the alias or user id asked
    /// for. 0 means it knows none: the key signed in with a passkey of its
    /// own choosing, whose user need not be the one asked for.
    public var offeredCredentials: Int?

    public init(token: String, credentialId: String, userHandle: String?, rpId: String, origin: String,
                userId: String? = nil, offeredCredentials: Int? = nil) {
        self.token = token
        self.credentialId = credentialId
        self.userHandle = userHandle
        self.rpId = rpId
        self.origin = origin
        self.userId = userId
        self.offeredCredentials = offeredCredentials
    }
}
