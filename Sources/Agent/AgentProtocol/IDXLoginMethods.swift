/// Okta Identity Engine in the terminal (`passkey login ACCOUNT --via
/// okta-idx`): the agent runs IDX's remediation loop — PKCE verifier,
/// state, nonce, interaction handle and `stateHandle` stay in its memory —
/// and the client only shows forms and sends what the person typed.
///
/// `login.begin` with `flow: "okta-idx"` answers `LoginStarted` whose `idx`
/// is the first step; `login.idx.proceed` sends a form and answers the next
/// step, or `done` with the landed login. The security key's steps (select
/// it, enroll, challenge) run inside the agent during either call, with the
/// same progress notifications (`touch`) and PIN prompts as `webauthn.*`.

/// What the person is shown at one step of an IDX sign-in.
public struct IDXStep: Codable, Sendable, Equatable {
    /// The sign-in ended: the tokens are in the vault.
    public var done: Bool
    public var login: LoginResult?
    /// The form to fill and send back with `login.idx.proceed` (e.g. `identify`).
    public var remediation: String?
    /// Its fields, in the server's order.
    public var fields: [IDXFieldPrompt]
    /// Every form the server offers now (e.g. `identify`, `redirect-idp`, `cancel`).
    public var offered: [String]
    /// The server's messages: the top level's and each field's.
    public var messages: [IDXMessage]
    /// When the agent gives up on this sign-in (seconds since 1970).
    public var expiresAt: Int64

    public init(done: Bool, login: LoginResult? = nil, remediation: String? = nil, fields: [IDXFieldPrompt] = [],
                offered: [String] = [], messages: [IDXMessage] = [], expiresAt: Int64) {
        self.done = done
        self.login = login
        self.remediation = remediation
        self.fields = fields
        self.offered = offered
        self.messages = messages
        self.expiresAt = expiresAt
    }
}

/// One field to ask, as the server describes it.
public struct IDXFieldPrompt: Codable, Sendable, Equatable {
    /// Dotted path to send the value under (`identifier`, `credentials.passcode`).
    public var path: String
    public var label: String
    public var type: String?
    public var required: Bool
    /// Ask without echo; never show or log the value.
    public var secret: Bool
    /// Choices, in order: answer with the number (1…n) or the label.
    public var options: [String]
    /// The server's messages about this field (e.g. a wrong password).
    public var messages: [String]

    public init(path: String, label: String, type: String?, required: Bool, secret: Bool, options: [String], messages: [String]) {
        self.path = path
        self.label = label
        self.type = type
        self.required = required
        self.secret = secret
        self.options = options
        self.messages = messages
    }
}

/// `login.idx.proceed`: sends the form `remediation` with `values` (by
/// dotted path; `stateHandle` and fixed values are the agent's), runs any
/// security-key steps that follow, and answers the next step or `done`.
/// `remediation: "cancel"` ends the sign-in at the server and in the agent.
public enum LoginIDXProceedMethod: AgentMethod {
    public static let name = "login.idx.proceed"
    public static let answerWait = AnswerWait.person
    public typealias Result = IDXStep

    public struct Params: Codable, Sendable, Equatable {
        public var account: String
        public var remediation: String
        /// Secret values (passwords) travel only here, never in a log.
        public var values: [String: String]?
        public var device: DeviceChoice?
        /// The key's PIN, when the caller collected it already.
        public var pin: String?
        /// The client can answer `pin` and `choose` prompts.
        public var interactive: Bool?

        public init(account: String, remediation: String, values: [String: String]? = nil, device: DeviceChoice? = nil,
                    pin: String? = nil, interactive: Bool? = nil) {
            self.account = account
            self.remediation = remediation
            self.values = values
            self.device = device
            self.pin = pin
            self.interactive = interactive
        }
    }
}
