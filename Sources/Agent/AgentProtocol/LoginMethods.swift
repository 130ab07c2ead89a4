/// `passkey login`: the agent runs an OpenID Connect login and lands the
/// validated token set in the vault; the client shows what to open, relays
/// a pasted redirect, and waits. Nothing secret (code, verifier, state,
/// nonce, device code) ever leaves the agent.
///
/// A login is named by its account: one login per account at a time (a new
/// `login.begin` for the account replaces the one in flight).

/// How the authorization reaches the agent.
public enum LoginFlow: String, Codable, Sendable, CaseIterable {
    /// Browser on a display: `$DISPLAY`/`$WAYLAND_DISPLAY` → browser; none →
    /// device grant when the provider offers it, else paste.
    case auto
    /// Authorization code + PKCE on a loopback redirect the agent listens on.
    case browser
    /// RFC 8628 device authorization grant: a code to enter on another device.
    case device
    /// As `browser`, but the person pastes the final redirect URL (SSH, a remote browser).
    case paste
    /// Okta Identity Engine's remediation forms in the terminal, with the
    /// security key for WebAuthn (IDXLoginMethods.swift): never chosen by `auto`.
    case oktaIDX = "okta-idx"
}

/// `login.begin`: discovery, then the flow's first step. Answers at once
/// with what to show; `login.wait` then waits for the end.
public enum LoginBeginMethod: AgentMethod {
    public static let name = "login.begin"
    public static let answerWait = AnswerWait.person
    public typealias Result = LoginStarted

    public struct Params: Codable, Sendable, Equatable {
        public var account: String
        /// The OpenID issuer; absent: the one saved for the account at its last login.
        public var issuer: String?
        public var clientId: String?
        /// A confidential client's secret (some providers give "desktop"
        /// clients one); kept in the vault with the tokens, reused by later
        /// logins of the account. Never in a log or a message.
        public var clientSecret: String?
        /// Absent: the saved scopes, else `openid profile email offline_access`.
        public var scopes: [String]?
        public var flow: LoginFlow?
        /// Whether the client's session has a display (it decides `auto`):
        /// the agent under systemd cannot see the user's `$DISPLAY`.
        public var display: Bool?
        /// A fixed loopback port for the redirect (for `ssh -L`); 0 or absent: any.
        public var port: Int?
        /// A private-use-scheme redirect URI (`com.example.app:/callback`,
        /// RFC 8252 §7.1) instead of the loopback listener: the redirect then
        /// arrives through the URL-scheme handler (`invoke`) or a paste.
        public var redirectURI: String?
        /// Extra authorization-request parameters, e.g. `login_hint`, `idp`, `prompt`.
        public var extra: [String: String]?
        /// Replace the account's tokens even if the provider signs in another subject.
        public var force: Bool?
        /// Seconds the login may take (default 300, at most 1800).
        public var timeout: Int?
        /// okta-idx: the authenticator to use instead of the security key
        /// (an option's label, or an authenticator's key such as `okta_password`).
        public var authenticator: String?
        /// okta-idx: the security key for its WebAuthn steps, its PIN, and
        /// whether the client answers `pin`/`choose` prompts (as `webauthn.*`).
        public var device: DeviceChoice?
        public var pin: String?
        public var interactive: Bool?
        /// Endpoints the provider's discovery and RFC 8414 metadata do not
        /// name (or name wrongly): used instead of theirs, saved with the
        /// account for its later logins and logout. Same rule as discovered
        /// ones: https, or http to this machine.
        public var deviceAuthorizationEndpoint: String?
        public var revocationEndpoint: String?
        /// okta-idx: the identifier to sign in as (`--username`); absent: the
        /// one the account's last sign-in used, returned in `LoginStarted.username`.
        public var username: String?

        public init(account: String, issuer: String? = nil, clientId: String? = nil, clientSecret: String? = nil, scopes: [String]? = nil,
                    flow: LoginFlow? = nil, display: Bool? = nil, port: Int? = nil, redirectURI: String? = nil,
                    extra: [String: String]? = nil, force: Bool? = nil, timeout: Int? = nil, authenticator: String? = nil,
                    device: DeviceChoice? = nil, pin: String? = nil, interactive: Bool? = nil,
                    deviceAuthorizationEndpoint: String? = nil, revocationEndpoint: String? = nil, username: String? = nil) {
            self.username = username
            self.account = account
            self.issuer = issuer
            self.clientId = clientId
            self.clientSecret = clientSecret
            self.scopes = scopes
            self.flow = flow
            self.display = display
            self.port = port
            self.redirectURI = redirectURI
            self.extra = extra
            self.force = force
            self.timeout = timeout
            self.authenticator = authenticator
            self.device = device
            self.pin = pin
            self.interactive = interactive
            self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
            self.revocationEndpoint = revocationEndpoint
        }
    }
}

/// What the person has to do to finish a login.
public struct LoginStarted: Codable, Sendable, Equatable {
    public var account: String
    public var issuer: String
    /// The flow chosen (never `auto`).
    public var flow: LoginFlow
    /// browser/paste: the URL to open, in full (never a local redirector).
    /// For the terminal only: it carries the login's `state`, nonce and PKCE
    /// challenge, so it never goes on a command line (another user could read it).
    public var authorizationURL: String?
    /// browser: the launch page to hand the browser (as `file://PATH`): a
    /// file only this user can read (0600, in the agent's 0700 runtime
    /// directory) that sends the browser on to `authorizationURL`; removed
    /// when the login ends.
    public var launchPage: String?
    /// browser: why there is no launch page (the person opens the URL themselves).
    public var launchPageProblem: String?
    /// browser/paste: where the provider sends the browser back (`http://127.0.0.1:PORT/callback`).
    public var redirectURI: String?
    /// device: the code to enter, and where.
    public var userCode: String?
    public var verificationURI: String?
    public var verificationURIComplete: String?
    /// When the agent gives up on this login (seconds since 1970).
    public var expiresAt: Int64
    /// okta-idx: the first step (a form to fill), or `done` already.
    public var idx: IDXStep?
    /// okta-idx: the identifier to fill in (given, else saved from the last sign-in).
    public var username: String?

    public init(account: String, issuer: String, flow: LoginFlow, authorizationURL: String? = nil, launchPage: String? = nil,
                launchPageProblem: String? = nil, redirectURI: String? = nil,
                userCode: String? = nil, verificationURI: String? = nil, verificationURIComplete: String? = nil, expiresAt: Int64,
                idx: IDXStep? = nil, username: String? = nil) {
        self.username = username
        self.account = account
        self.issuer = issuer
        self.flow = flow
        self.authorizationURL = authorizationURL
        self.launchPage = launchPage
        self.launchPageProblem = launchPageProblem
        self.redirectURI = redirectURI
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresAt = expiresAt
        self.idx = idx
    }
}

/// `login.wait`: waits up to `seconds` for the account's login to end and
/// says whether it did; a client calls it again until `done`. Cancelling the
/// wait (`$/cancel`, or hanging up) cancels the login. Each wait is short so
/// that no request outlives the agent's request timeout, however long the
/// login (a device code may live 30 minutes).
public enum LoginWaitMethod: AgentMethod {
    public static let name = "login.wait"
    public static let answerWait = AnswerWait.person
    public typealias Result = LoginWaitResult

    public struct Params: Codable, Sendable, Equatable {
        public var account: String
        /// 1 to 120 (default 50).
        public var seconds: Int?
        public init(account: String, seconds: Int? = nil) {
            self.account = account
            self.seconds = seconds
        }
    }
}

public struct LoginWaitResult: Codable, Sendable, Equatable {
    /// Whether the login has ended (successfully: failures are errors).
    public var done: Bool
    /// The finished login, when `done`.
    public var login: LoginResult?

    public init(done: Bool, login: LoginResult?) {
        self.done = done
        self.login = login
    }
}

/// A finished login: the tokens are in the vault, the settings saved.
public struct LoginResult: Codable, Sendable, Equatable {
    public var account: String
    public var issuer: String
    /// The ID token's `sub` (validated).
    public var subject: String?
    /// The ID token's `name`, `preferred_username` or `email`, for "signed in as …".
    public var displayName: String?
    public var flow: LoginFlow
    public var scope: String?
    /// When the access token expires (seconds since 1970), when known.
    public var expiresAt: Int64?

    public init(account: String, issuer: String, subject: String?, displayName: String?, flow: LoginFlow,
                scope: String?, expiresAt: Int64?) {
        self.account = account
        self.issuer = issuer
        self.subject = subject
        self.displayName = displayName
        self.flow = flow
        self.scope = scope
        self.expiresAt = expiresAt
    }
}

/// `login.complete`: the final redirect URL, pasted (from any client).
/// A URL that is not this login's (wrong `state`) is refused and the login
/// keeps waiting; a provider's refusal (`error=…`) ends it.
public enum LoginCompleteMethod: AgentMethod {
    public static let name = "login.complete"
    public static let answerWait = AnswerWait.machine
    public typealias Result = LoginCompleted

    public struct Params: Codable, Sendable, Equatable {
        public var account: String
        public var redirectURL: String
        public init(account: String, redirectURL: String) {
            self.account = account
            self.redirectURL = redirectURL
        }
    }
}

public struct LoginCompleted: Codable, Sendable, Equatable {
    public var account: String
    /// The redirect was taken; `login.wait` answers when the tokens are stored.
    public var accepted: Bool
    public init(account: String, accepted: Bool) {
        self.account = account
        self.accepted = accepted
    }
}

/// `login.cancel`: ends the account's login in flight (its `login.wait` answers `cancelled`).
public enum LoginCancelMethod: AgentMethod {
    public static let name = "login.cancel"
    public static let answerWait = AnswerWait.machine
    public typealias Result = LoginCompleted

    public struct Params: Codable, Sendable, Equatable {
        public var account: String
        public init(account: String) { self.account = account }
    }
}

/// `login.logout`: RFC 7009 revocation of the refresh token, then the
/// access token, then the account's tokens and login settings are removed.
public enum LogoutMethod: AgentMethod {
    public static let name = "login.logout"
    public static let answerWait = AnswerWait.machine
    public typealias Result = LogoutResult

    public struct Params: Codable, Sendable, Equatable {
        public var account: String
        /// Revoke but keep the vault entry and settings.
        public var keep: Bool?
        /// Remove without contacting the provider.
        public var noRevoke: Bool?
        public init(account: String, keep: Bool? = nil, noRevoke: Bool? = nil) {
            self.account = account
            self.keep = keep
            self.noRevoke = noRevoke
        }
    }
}

public struct LogoutResult: Codable, Sendable, Equatable {
    public var account: String
    /// Which tokens the provider revoked: `refresh_token`, `access_token`.
    public var revoked: [String]
    /// Why nothing (or not everything) was revoked, e.g. the provider has no
    /// revocation endpoint: the tokens stay valid there until they expire.
    public var revocationProblem: String?
    /// Whether the vault entry and the login settings were removed.
    public var removed: Bool

    public init(account: String, revoked: [String], revocationProblem: String?, removed: Bool) {
        self.account = account
        self.revoked = revoked
        self.revocationProblem = revocationProblem
        self.removed = removed
    }
}

/// What `token list` adds for an account made by `passkey login`.
public struct AccountLogin: Codable, Sendable, Equatable {
    public var flow: LoginFlow?
    /// The subject seen at login.
    public var subject: String?
    /// The provider refused the refresh token: run `passkey login ACCOUNT`.
    public var needsLogin: Bool

    public init(flow: LoginFlow?, subject: String?, needsLogin: Bool) {
        self.flow = flow
        self.subject = subject
        self.needsLogin = needsLogin
    }
}
