import AgentProtocol
import AgentTokens
import OktaIDX
import Tokens

/// One Okta IDX sign-in in flight in the agent: the account's plan, its
/// deadline, and OktaIDX's `IDXSignIn`, which holds the sign-in's secrets
/// (in this process's memory only) and runs the remediation loop.
package final class IDXLogin: Sendable {
    package let plan: LoginPlan
    package let signIn: IDXSignIn
    /// Seconds since 1970 after which the sign-in is given up.
    package let expiresAt: Int64

    package init(plan: LoginPlan, signIn: IDXSignIn, expiresAt: Int64) {
        self.plan = plan
        self.signIn = signIn
        self.expiresAt = expiresAt
    }

    package var isExpired: Bool { TokenSet.now() >= expiresAt }
}
