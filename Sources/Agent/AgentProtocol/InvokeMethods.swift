/// `passkey invoke URL`: what a browser hands the URL-scheme handler. The
/// agent recognises a Beyond-Identity-style authenticate URL
/// (`…/bi-authenticate?request=<JWT>`), a binding URL or link, or the
/// redirect of a login in flight (a private-use-scheme redirect URI), and
/// finishes what it belongs to: the login waiting in `login.wait` lives in
/// the agent, so the handler is a short-lived process.

/// `invoke.check`: what kind of URL this is — by its shape alone (the SDK's
/// `isAuthenticateUrl` / `isBindPasskeyUrl`), or with `verify: true` also
/// the request JWT's signature and claims, answering who asks (shown before
/// anyone touches a key, as a phishing check).
public enum InvokeCheckMethod: AgentMethod {
    public static let name = "invoke.check"
    public static let answerWait = AnswerWait.machine
    public typealias Result = InvokeCheck

    public struct Params: Codable, Sendable, Equatable {
        public var url: String
        public var verify: Bool?
        public init(url: String, verify: Bool? = nil) {
            self.url = url
            self.verify = verify
        }
    }
}

/// What an invoke URL is.
public enum InvokeKind: String, Codable, Sendable {
    /// `…/bi-authenticate?request=<JWT>`: prove a passkey for a sign-in.
    case authenticate
    /// `…/bind?…` or a credential-binding link: create a passkey.
    case bind
    /// The redirect of a login in flight (its `state` decides which).
    case redirect
}

public struct InvokeCheck: Codable, Sendable, Equatable {
    /// nil: not an invoke URL this agent handles.
    public var kind: InvokeKind?
    /// authenticate, verified: the application asking, and where the request came from.
    public var application: String?
    public var requestIP: String?
    public var requestUserAgent: String?
    /// redirect: the account whose login it would finish.
    public var account: String?

    public init(kind: InvokeKind?, application: String? = nil, requestIP: String? = nil, requestUserAgent: String? = nil,
                account: String? = nil) {
        self.kind = kind
        self.application = application
        self.requestIP = requestIP
        self.requestUserAgent = requestUserAgent
        self.account = account
    }
}

/// `invoke`: does what the URL asks. authenticate: verify the request JWT
/// (its key set only from `[invoke] trusted-hosts`), a WebAuthn assertion on
/// the key for the IdP's challenge, the proof posted, then the redirect
/// chain followed until it reaches a login in flight, which finishes (code
/// exchange with PKCE, ID token, vault). bind: a discoverable passkey made
/// for the IdP. redirect: handed to its login.
public enum InvokeMethod: AgentMethod {
    public static let name = "invoke"
    public static let answerWait = AnswerWait.person
    public typealias Result = InvokeResult

    public struct Params: Codable, Sendable, Equatable {
        public var url: String
        public var device: DeviceChoice?
        /// authenticate: the passkey (credential id, base64url) to use when several match.
        public var passkeyId: String?
        public var pin: String?
        /// Whether the client answers `pin` questions.
        public var interactive: Bool?

        public init(url: String, device: DeviceChoice? = nil, passkeyId: String? = nil, pin: String? = nil, interactive: Bool? = nil) {
            self.url = url
            self.device = device
            self.passkeyId = passkeyId
            self.pin = pin
            self.interactive = interactive
        }
    }
}

public struct InvokeResult: Codable, Sendable, Equatable {
    public var kind: InvokeKind
    /// authenticate and redirect: the account whose login the URL finished
    /// (`login.wait` answers when its tokens are stored).
    public var account: String?
    /// authenticate: the application that asked.
    public var application: String?
    /// bind: the passkey made.
    public var passkey: BoundPasskeyReport?

    public init(kind: InvokeKind, account: String? = nil, application: String? = nil, passkey: BoundPasskeyReport? = nil) {
        self.kind = kind
        self.account = account
        self.application = application
        self.passkey = passkey
    }
}

public struct BoundPasskeyReport: Codable, Sendable, Equatable {
    /// The passkey id (the credential id, base64url).
    public var passkeyId: String
    public var identityId: String
    public var username: String?
    public var displayName: String?
    /// Where the IdP wants the browser to go next, if anywhere.
    public var postBindingRedirectURI: String?

    public init(passkeyId: String, identityId: String, username: String?, displayName: String?, postBindingRedirectURI: String?) {
        self.passkeyId = passkeyId
        self.identityId = identityId
        self.username = username
        self.displayName = displayName
        self.postBindingRedirectURI = postBindingRedirectURI
    }
}
