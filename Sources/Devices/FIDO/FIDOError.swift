import CFIDO2

/// What went wrong talking to an authenticator, in terms a user can act on.
///
/// libfido2's return codes (CTAP status bytes and its own negative codes) are
/// mapped onto these once, in `FIDOError.init(code:operation:)`.
public enum FIDOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No security key is connected (or none matched the selection).
    case noDevice(String)
    /// The device could not be opened or stopped answering (unplugged, or held by another program).
    case deviceUnavailable(String)
    /// The device answered with something libfido2 could not read.
    case deviceIO(String)
    /// A PIN (or built-in user verification) is needed for this request.
    case pinRequired
    /// The PIN was wrong; `retriesLeft` is what the key reports now.
    case pinInvalid(retriesLeft: Int?)
    /// Three wrong PINs in a row: the key refuses PINs until it is unplugged and plugged back in.
    case pinAuthBlocked
    /// The PIN is blocked for good: the key must be reset, which deletes its credentials.
    case pinBlocked
    /// The key has no PIN yet, and this request needs one.
    case pinNotSet
    /// The new PIN does not meet the key's rules (length, or the same as before).
    case pinPolicyViolation
    /// Built-in user verification (a fingerprint) failed.
    case userVerificationFailed(retriesLeft: Int?)
    /// Built-in user verification is blocked; use the PIN.
    case userVerificationBlocked
    /// The user declined (pressed "no", or the key refused the presence check).
    case operationDenied
    /// Nobody touched the key in time.
    case userActionTimeout
    /// The request was cancelled (by the caller, or the user).
    case cancelled
    /// A credential in the exclude list is already on this key: it is registered already.
    case credentialExcluded
    /// The key holds no credential for this relying party (or none of the allowed ones).
    case noCredentials
    /// The key supports none of the algorithms the relying party accepts.
    case unsupportedAlgorithm
    /// The key does not support an option or extension the request needs.
    case unsupportedOption(String)
    /// The key's storage for discoverable credentials is full.
    case keyStoreFull
    /// The key refused authenticatorReset: keys allow it only within 10 s of
    /// power-up — of being plugged in, of reaching the reader's field, or
    /// (the software authenticator) of being loaded. Says how, by transport.
    case resetNotAllowed(DeviceTransport)
    /// A request parameter was refused before reaching the key.
    case invalidArgument(String)
    /// Any other libfido2 or CTAP error, with libfido2's own description.
    case other(code: Int32, String)

    public var description: String {
        switch self {
        case .noDevice(let detail): return detail
        case .deviceUnavailable(let detail): return "the security key is unavailable: \(detail)"
        case .deviceIO(let detail): return "the security key stopped answering (\(detail)); was it unplugged?"
        case .pinRequired: return "this security key needs its PIN for this request"
        case .pinInvalid(let left?):
            return "wrong PIN: \(left) \(left == 1 ? "try" : "tries") left before the key locks"
        case .pinInvalid(nil): return "wrong PIN"
        case .pinAuthBlocked:
            return "too many wrong PINs in a row: unplug the security key and plug it back in to try again"
        case .pinBlocked:
            return "the security key's PIN is blocked; only a reset (which erases its passkeys) makes it usable again"
        case .pinNotSet: return "this security key has no PIN yet; set one with `passkey pin set`"
        case .pinPolicyViolation: return "the new PIN does not meet the security key's rules (4 to 63 bytes, and not the current one)"
        case .userVerificationFailed(let left?): return "user verification failed: \(left) attempts left"
        case .userVerificationFailed(nil): return "user verification failed"
        case .userVerificationBlocked: return "built-in user verification is blocked; use the PIN instead"
        case .operationDenied: return "the request was declined on the security key"
        case .userActionTimeout: return "timed out waiting for you to touch the security key"
        case .cancelled: return "the request was cancelled"
        case .credentialExcluded: return "this security key is already registered with this account"
        case .noCredentials: return "this security key holds no passkey for this site (or none of the allowed ones)"
        case .unsupportedAlgorithm: return "the security key supports none of the algorithms the site accepts"
        case .unsupportedOption(let what): return "the security key does not support \(what)"
        case .keyStoreFull: return "the security key has no room for another discoverable passkey"
        case .resetNotAllowed(.usb):
            return "reset is only allowed within 10 seconds of plugging the key in: unplug it, plug it back, and run this again"
        case .resetNotAllowed(.nfc):
            return "reset is only allowed within 10 seconds of putting the key on the reader: take it off the reader, put it back, and run this again"
        case .resetNotAllowed(.virtual):
            return "reset is only allowed within 10 seconds of the software authenticator's power-up, which is when the agent first uses it: restart the agent (or use --no-agent) and run this again"
        case .invalidArgument(let what): return "invalid request: \(what)"
        case .other(let code, let text): return "security key error \(code): \(text)"
        }
    }

    /// Maps a libfido2 return code. `pinRetries` is consulted only for PIN_INVALID.
    init(code: Int32, operation: String, pinRetries: () -> Int? = { nil }) {
        switch code {
        case FIDO_ERR_PIN_REQUIRED, FIDO_ERR_UNAUTHORIZED_PERM: self = .pinRequired
        case FIDO_ERR_PIN_INVALID, FIDO_ERR_PIN_AUTH_INVALID: self = .pinInvalid(retriesLeft: pinRetries())
        case FIDO_ERR_PIN_AUTH_BLOCKED: self = .pinAuthBlocked
        case FIDO_ERR_PIN_BLOCKED: self = .pinBlocked
        case FIDO_ERR_PIN_NOT_SET: self = .pinNotSet
        case FIDO_ERR_PIN_POLICY_VIOLATION: self = .pinPolicyViolation
        case FIDO_ERR_UV_INVALID: self = .userVerificationFailed(retriesLeft: nil)
        case FIDO_ERR_UV_BLOCKED: self = .userVerificationBlocked
        case FIDO_ERR_OPERATION_DENIED: self = .operationDenied
        case FIDO_ERR_USER_ACTION_TIMEOUT, FIDO_ERR_ACTION_TIMEOUT: self = .userActionTimeout
        case FIDO_ERR_KEEPALIVE_CANCEL: self = .cancelled
        case FIDO_ERR_CREDENTIAL_EXCLUDED: self = .credentialExcluded
        case FIDO_ERR_NO_CREDENTIALS: self = .noCredentials
        case FIDO_ERR_UNSUPPORTED_ALGORITHM: self = .unsupportedAlgorithm
        case FIDO_ERR_UNSUPPORTED_OPTION: self = .unsupportedOption("an option this request needs")
        case FIDO_ERR_UNSUPPORTED_EXTENSION: self = .unsupportedOption("an extension this request needs")
        case FIDO_ERR_KEY_STORE_FULL: self = .keyStoreFull
        case FIDO_ERR_INVALID_ARGUMENT: self = .invalidArgument("\(operation) was given an invalid parameter")
        case FIDO_ERR_TX, FIDO_ERR_RX, FIDO_ERR_RX_NOT_CBOR, FIDO_ERR_RX_INVALID_CBOR:
            self = .deviceIO("\(operation): \(String(cString: fido_strerr(code)))")
        default: self = .other(code: code, "\(operation): \(String(cString: fido_strerr(code)))")
        }
    }
}
