import CBOR
import Locking

/// The discoverable credentials a getAssertion found beyond the first, still
/// to be returned by authenticatorGetNextAssertion (0x08, CTAP 2.1 §6.3).
struct PendingAssertions {
    /// §6.3: the platform has 30 s between calls.
    static let lifetimeNanoseconds: UInt64 = 30_000_000_000

    let context: AssertionContext
    /// Credential ids, most recent first.
    var remaining: [[UInt8]]
    var lastUsed = MonotonicClock.now()

    init(context: AssertionContext, remaining: [[UInt8]]) {
        self.context = context
        self.remaining = remaining
    }
}

extension AuthenticatorEngine {
    /// NOT_ALLOWED unless the previous command was a getAssertion (or
    /// getNextAssertion) with credentials left, less than 30 s ago.
    func getNextAssertion() throws(CTAPStatus) -> CBOR {
        guard var pending = pendingAssertions, !pending.remaining.isEmpty,
              MonotonicClock.now() &- pending.lastUsed <= PendingAssertions.lifetimeNanoseconds else {
            pendingAssertions = nil
            throw .notAllowed
        }
        let id = pending.remaining.removeFirst()
        pending.lastUsed = MonotonicClock.now()
        pendingAssertions = pending.remaining.isEmpty ? nil : pending
        // Nothing else ran since getAssertion, so the credential is still there.
        guard let credential = state.credentials.first(where: { $0.id == id }) else { throw .notAllowed }
        return try assertionResponse(ResolvedCredential(discoverable: credential), pending.context,
                                     numberOfCredentials: nil)
    }
}
