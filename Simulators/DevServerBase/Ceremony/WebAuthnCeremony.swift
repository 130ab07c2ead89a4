import WebAuthn

/// What the servers' WebAuthn ceremonies share: the timeout they send, and
/// how a verifier's refusal reads in an answer.
package enum WebAuthnCeremony {
    /// The ceremony timeout the hosted API sends, in milliseconds.
    package static let timeout: UInt32 = 60000

    /// The verifier's "<check>: <why>", without the "verification failed" prefix.
    package static func reason(_ error: WebAuthnError) -> String {
        if case .verificationFailed(let why) = error { return why }
        return error.description
    }
}
