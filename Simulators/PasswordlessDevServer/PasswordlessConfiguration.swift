import DevServerBase
import WebAuthn

/// What the passwordless.dev API reads of the devserver's configuration
/// (`DevServerConfiguration` says what each setting means).
package struct PasswordlessConfiguration: Sendable {
    package var sessionLifetime: Duration
    package var verifyTokenLifetime: Duration
    package var registerTokenLifetime: Duration
    package var signInUserVerification: UserVerificationRequirement
    package var clock: DevServerClock

    package init(sessionLifetime: Duration, verifyTokenLifetime: Duration, registerTokenLifetime: Duration,
                 signInUserVerification: UserVerificationRequirement, clock: DevServerClock) {
        self.sessionLifetime = sessionLifetime
        self.verifyTokenLifetime = verifyTokenLifetime
        self.registerTokenLifetime = registerTokenLifetime
        self.signInUserVerification = signInUserVerification
        self.clock = clock
    }
}
