import Locking

/// authenticatorReset (0x07, CTAP 2.1 §6.6).
///
/// "Power-up" is the construction of the `CTAP2Authenticator` instance: a reset
/// is allowed within `resetWindowMilliseconds` (10 s by default) of it, and
/// needs a touch. It wipes the discoverable credentials and the PIN and draws
/// a new master secret, so every non-discoverable credential id ever issued
/// stops working. The signature counter carries on, so counts never go back.
extension AuthenticatorEngine {
    func reset(_ interaction: SimulatedUser) throws(CTAPStatus) {
        let window = MonotonicClock.nanoseconds(milliseconds: configuration.resetWindowMilliseconds)
        guard resetClock() &- poweredUpAt <= window else { throw .notAllowed }
        try interaction.collectPresence().requireApproved()
        try replaceState(with: .fresh(counter: state.counter))
        keyAgreement.regenerate()
        token.revoke()
        consecutivePINMismatches = 0
        pendingAssertions = nil
        pendingEnumeration = nil
        unwrapCache.removeAll()
    }
}
