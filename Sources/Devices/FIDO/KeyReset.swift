import CFIDO2
import Interaction

extension FIDODevice {
    /// authenticatorReset (CTAP 2.1 §6.6): deletes every credential on the
    /// key and its PIN. Keys allow it only soon after power-up (10 s) and
    /// only with a touch; a key that refuses for the time is
    /// `resetNotAllowed`, which says how to power it up again.
    public func reset(timeout: Duration? = .seconds(30),
                      progress: (@Sendable (ProgressStage) -> Void)? = nil) throws(FIDOError) {
        let status = exchange(timeout: timeout, expectsTouch: true, progress: progress) { handle in
            fido_dev_reset(handle)
        }
        guard status == FIDO_OK else {
            if status == FIDO_ERR_NOT_ALLOWED { throw .resetNotAllowed(descriptor.transport) }
            throw FIDOError(code: status, operation: "resetting the key")
        }
    }
}
