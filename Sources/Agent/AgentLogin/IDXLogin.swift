import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import Locking
import OktaIDX
import Tokens

/// One Okta IDX sign-in in flight: its secrets (the transaction: PKCE
/// verifier, state, nonce, interaction handle; the latest answer with its
/// `stateHandle`) in the agent's memory only, until its deadline. Calls on
/// it take turns: a form is sent only on the answer it came from.
package actor IDXLogin {
    package nonisolated let plan: LoginPlan
    package nonisolated let client: IDXClient
    package nonisolated let authenticator: String?
    package nonisolated let redirectURI: String
    /// Seconds since 1970 after which the sign-in is given up.
    package nonisolated let expiresAt: Int64
    /// A call is running the sign-in's steps: a second one is refused, not
    /// interleaved (a form is sent only on the answer it came from).
    package nonisolated let running = Locked(false)
    package var transaction: IDXTransaction
    package var response: IDXResponse
    /// `idx.session.expired` restarts the transaction once; the second time it stops.
    package var restarted = false
    /// Steps taken so far, asked or automatic: the whole sign-in's loop guard.
    package var steps = 0
    /// The identifier sent in an identify form: saved with the account when the sign-in lands.
    package var username: String?

    /// Automatic steps in a row (select, enroll, challenge) before the loop stops.
    package static let maximumAutomaticSteps = 12
    /// Steps in one sign-in, in all (a person retyping a password counts).
    package static let maximumSteps = 40

    package init(plan: LoginPlan, client: IDXClient, authenticator: String?, redirectURI: String, expiresAt: Int64,
         transaction: IDXTransaction, response: IDXResponse) {
        self.plan = plan
        self.client = client
        self.authenticator = authenticator
        self.redirectURI = redirectURI
        self.expiresAt = expiresAt
        self.transaction = transaction
        self.response = response
    }

    package func remember(username: String) {
        self.username = username
    }

    package func update(_ response: IDXResponse) {
        self.response = response
    }

    package func restart(_ transaction: IDXTransaction, _ response: IDXResponse) {
        self.transaction = transaction
        self.response = response
        restarted = true
    }

    /// Counts a step; false once the sign-in has taken too many.
    package func countStep() -> Bool {
        steps += 1
        return steps <= Self.maximumSteps
    }

    package nonisolated var isExpired: Bool { TokenSet.now() >= expiresAt }

    /// Takes the sign-in for one call; false when another call has it.
    package nonisolated func claim() -> Bool {
        running.withLock { running in
            guard !running else { return false }
            running = true
            return true
        }
    }

    package nonisolated func release() {
        running.withLock { $0 = false }
    }
}
