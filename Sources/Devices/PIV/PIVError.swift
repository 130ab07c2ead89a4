import ISO7816
import SmartCard

/// Why a PIV operation failed, as something the user can act on. PINs, PUKs
/// and keys never appear in these messages.
public enum PIVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reader, pcscd or the connection failed.
    case smartCard(SmartCardError)
    /// The card has no PIV application (SELECT failed).
    case notPIVCard(reader: String)
    /// A PIN, PUK or new value does not have the form a PIV card accepts.
    case invalidSecret(String)
    /// The PIN was wrong; the card counts down.
    case wrongPIN(triesLeft: Int)
    /// The PIN is blocked; only the PUK can unblock it.
    case pinBlocked
    /// The PUK was wrong.
    case wrongPUK(triesLeft: Int)
    /// The PUK is blocked too; only a reset of the PIV application (losing its keys) helps.
    case pukBlocked
    /// The key needs the PIN verified first.
    case pinRequired(slot: PIVSlot)
    /// The data object can be read only after the PIN is verified (printed information, biometrics).
    case pinRequiredToRead(PIVObjectID)
    /// The operation needs management-key authentication first.
    case managementKeyRequired(operation: String)
    /// The card rejected the management key (wrong key or wrong algorithm).
    case managementKeyRejected
    /// The card answered the management-key challenge wrongly: it does not hold the key we hold.
    case cardNotAuthenticated
    /// A management key given by the user is malformed.
    case invalidManagementKey(String)
    /// The slot has no key.
    case noKey(slot: PIVSlot)
    /// The slot already holds a key and replacing it was not allowed.
    case keyExists(slot: PIVSlot)
    /// The slot's key is of a kind this client does not use.
    case unsupportedKey(slot: PIVSlot, algorithm: String)
    /// The card refused a command with a status word this client does not expect.
    case cardRejected(operation: String, status: StatusWord)
    /// The card's answer cannot be parsed.
    case malformedResponse(operation: String, reason: String)
    /// No card matches the requested identity.
    case cardNotFound(String)
    /// Several readers hold a PIV card and none was named.
    case severalCards([String])
    /// A certificate could not be built, read or written.
    case certificate(String)

    public var description: String {
        switch self {
        case .smartCard(let error):
            return error.description
        case .notPIVCard(let reader):
            return "the card in \"\(reader)\" has no PIV application"
        case .invalidSecret(let why):
            return why
        case .wrongPIN(let tries):
            return tries == 1
                ? "wrong PIN: 1 try left before the PIN is blocked"
                : "wrong PIN: \(tries) tries left before the PIN is blocked"
        case .pinBlocked:
            return "the PIN is blocked after too many wrong tries: unblock it with the PUK using `passkey card pin unblock`"
        case .wrongPUK(let tries):
            return tries == 1
                ? "wrong PUK: 1 try left before the PUK is blocked"
                : "wrong PUK: \(tries) tries left before the PUK is blocked"
        case .pukBlocked:
            return "the PUK is blocked: only a reset of the card's PIV application can recover it, and that erases its keys"
        case .pinRequired(let slot):
            return "the key in slot \(slot) needs the PIN: verify the PIN first"
        case .pinRequiredToRead(let object):
            return "reading object \(object) needs the PIN: verify the PIN first"
        case .managementKeyRequired(let operation):
            return "\(operation) needs the card's management key: authenticate with it first"
        case .managementKeyRejected:
            return "the card rejected the management key"
        case .cardNotAuthenticated:
            return "the card failed the management-key challenge: it does not hold the same key"
        case .invalidManagementKey(let why):
            return "invalid management key: \(why)"
        case .noKey(let slot):
            return "slot \(slot) (\(slot.name)) holds no key"
        case .keyExists(let slot):
            return "slot \(slot) (\(slot.name)) already holds a key; pass --force to replace it (the old key is lost for good)"
        case .unsupportedKey(let slot, let algorithm):
            return "slot \(slot) holds a \(algorithm) key; only P-256 keys are supported"
        case .cardRejected(let operation, let status):
            return "the card refused \(operation): \(status)"
        case .malformedResponse(let operation, let reason):
            return "the card's answer to \(operation) is malformed: \(reason)"
        case .cardNotFound(let what):
            return "no PIV card found \(what)"
        case .severalCards(let readers):
            let names = readers.map { "\"\($0)\"" }.joined(separator: ", ")
            return "several readers hold a PIV card (\(names)): choose one with --reader"
        case .certificate(let why):
            return "certificate: \(why)"
        }
    }

    /// How many tries the PIN or PUK has left, when the error says.
    public var triesLeft: Int? {
        switch self {
        case .wrongPIN(let n), .wrongPUK(let n): return n
        case .pinBlocked, .pukBlocked: return 0
        default: return nil
        }
    }
}
