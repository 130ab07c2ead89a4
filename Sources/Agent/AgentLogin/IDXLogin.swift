import AgentProtocol
import OktaIDX
import Locking
import Tokens

/// One Okta IDX sign-in in flight: its secrets (the transaction: PKCE
/// verifier, state, nonce, interaction handle; the latest answer with its
/// `stateHandle`) in the agent's memory only, until its deadline. Calls on
/// it take turns: a form is sent only on the answer it came from.
actor IDXLogin {
    nonisolated let plan: LoginPlan
    nonisolated let client: IDXClient
    nonisolated let authenticator: String?
    nonisolated let redirectURI: String
    /// Seconds since 1970 after which the sign-in is given up.
    nonisolated let expiresAt: Int64
    /// A call is running the sign-in's steps: a second one is refused, not
    /// interleaved (a form is sent only on the answer it came from).
    nonisolated let running = Locked(false)
    var transaction: IDXTransaction
    var response: IDXResponse
    /// `idx.session.expired` restarts the transaction once; the second time it stops.
    var restarted = false
    /// Steps taken so far, asked or automatic: the whole sign-in's loop guard.
    var steps = 0
    /// The identifier sent in an identify form: saved with the account when the sign-in lands.
    var username: String?

    /// Automatic steps in a row (select, enroll, challenge) before the loop stops.
    static let maximumAutomaticSteps = 12
    /// Steps in one sign-in, in all (a person retyping a password counts).
    static let maximumSteps = 40

    init(plan: LoginPlan, client: IDXClient, authenticator: String?, redirectURI: String, expiresAt: Int64,
         transaction: IDXTransaction, response: IDXResponse) {
        self.plan = plan
        self.client = client
        self.authenticator = authenticator
        self.redirectURI = redirectURI
        self.expiresAt = expiresAt
        self.transaction = transaction
        self.response = response
    }

    func remember(username: String) {
        self.username = username
    }

    func update(_ response: IDXResponse) {
        self.response = response
    }

    func restart(_ transaction: IDXTransaction, _ response: IDXResponse) {
        self.transaction = transaction
        self.response = response
        restarted = true
    }

    /// Counts a step; false once the sign-in has taken too many.
    func countStep() -> Bool {
        steps += 1
        return steps <= Self.maximumSteps
    }

    nonisolated var isExpired: Bool { TokenSet.now() >= expiresAt }

    /// Takes the sign-in for one call; false when another call has it.
    nonisolated func claim() -> Bool {
        running.withLock { running in
            guard !running else { return false }
            running = true
            return true
        }
    }

    nonisolated func release() {
        running.withLock { $0 = false }
    }
}
