import Interaction

extension PINExchange {
    /// A request on a security key through the one PIN loop: its PIN is asked
    /// for when `needsPIN` (the plan chose the PIN over built-in UV), when the
    /// key says it needs it, and when its fingerprint check fails and it has a
    /// PIN. Used by the ceremonies and the vault's `fido2` slots alike.
    /// `keyError` finds the key's error in what `attempt` throws (the vault
    /// wraps it in its own).
    public func run<T>(on device: FIDODevice, needsPIN: Bool, reason: String,
                       keyError: (any Error) -> FIDOError? = { $0 as? FIDOError },
                       attempt: (_ pin: String?) async throws -> T) async throws -> T {
        let keyHasPIN = device.info.hasPIN
        return try await run(needsPIN: needsPIN,
                             request: { PINRequest(what: "security key PIN", reason: reason, triesLeft: $0) },
                             classify: { keyError($0)?.pinRetry(keyHasPIN: keyHasPIN) },
                             attempt: attempt)
    }
}

extension FIDOError {
    /// What this failure means for the PIN loop.
    func pinRetry(keyHasPIN: Bool) -> PINExchange.Retry? {
        switch self {
        case .pinRequired:
            return .askForPIN
        case .userVerificationFailed, .userVerificationBlocked:
            // The fingerprint was not recognised: fall back to the PIN, as browsers do.
            return keyHasPIN ? .askForPIN : nil
        case .pinInvalid(let left):
            return .wrongPIN(triesLeft: left)
        default:
            return nil
        }
    }
}
