import FIDO

/// Why a vault operation failed, as something the user can act on. Keys,
/// PINs and entry contents never appear in these messages.
public enum VaultError: Error, Sendable, Equatable, CustomStringConvertible {
    // MARK: The vault's files.
    /// No vault has been created at this path.
    case notInitialized(path: String)
    /// `vault init` found a vault already there and left it alone.
    case alreadyExists(path: String)
    /// A file could not be read (permissions, I/O).
    case unreadable(path: String, reason: String)
    /// A file could not be written (permissions, disk full, I/O).
    case notWritable(path: String, reason: String)
    /// A vault file or directory is not private (a link, another user's, or open to others).
    case unsafeFile(String)
    /// The header (key slots) does not parse.
    case malformedHeader(path: String, reason: String)
    /// A file was written by a newer format than this build reads.
    case unsupportedVersion(path: String, version: Int)
    /// One entry is damaged (truncated, altered, or from another vault); the others are unaffected.
    case damagedEntry(path: String, reason: String)
    /// No entry with this name.
    case entryNotFound(String)
    /// An entry name that cannot be used.
    case invalidEntryName(String)
    /// An entry larger than the vault stores.
    case entryTooLarge(name: String, limit: Int)
    /// The vault was locked while the operation ran.
    case closed

    // MARK: Key slots.
    /// The vault has no slot of the kind asked for.
    case noSlotOfKind(String, available: String)
    /// No slot with this number.
    case noSuchSlot(UInt8)
    /// Removing the only slot would make the vault impossible to open.
    case lastSlot(UInt8)
    /// The header has room for no more slots.
    case tooManySlots(limit: Int)
    /// The slot's device answered, but its secret does not unwrap the data key.
    case slotDoesNotOpen(slot: UInt8, reason: String)

    // MARK: PIV cards.
    /// pcscd does not answer.
    case pcscUnavailable(String)
    /// The enrolled card is in no reader.
    case cardNotPresent(String)
    /// No card (or no reader) where one was named.
    case noCard(String)
    /// Another program holds the card.
    case cardBusy(String)
    /// The card has no usable key in slot 9D.
    case cardHasNoKey(String)
    /// The card in the named reader is not one the vault knows.
    case cardNotEnrolled(String)
    /// Wrong PIN; the card counts down.
    case wrongPIN(triesLeft: Int)
    /// The PIN is blocked.
    case pinBlocked
    /// Any other refusal or failure of the card.
    case card(String)

    // MARK: FIDO2 keys.
    /// The security key failed or refused (PIN, touch, UV, I/O).
    case securityKey(FIDOError)
    /// The security key holds none of the vault's fido2 credentials.
    case securityKeyNotEnrolled(String)
    /// The security key cannot hold a vault slot.
    case securityKeyUnsuitable(String)

    public var description: String {
        switch self {
        case .notInitialized(let path):
            return "there is no vault at \(path): create one with `passkey vault init`"
        case .alreadyExists(let path):
            return "a vault already exists at \(path); it was left as it is (remove the directory yourself to start over)"
        case .unreadable(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .notWritable(let path, let reason):
            return "cannot write \(path): \(reason)"
        case .unsafeFile(let why):
            return why + " (the vault keeps its files 0600 in 0700 directories of your own)"
        case .malformedHeader(let path, let reason):
            return "the vault header \(path) is damaged: \(reason)"
        case .unsupportedVersion(let path, let version):
            return "\(path) is in vault format \(version), newer than this passkey-agent reads (format \(VaultFormat.version)): upgrade passkey-agent"
        case .damagedEntry(let path, let reason):
            return "the vault entry \(path) is damaged (\(reason)); other entries are unaffected: delete it and store it again"
        case .entryNotFound(let name):
            return "the vault has no entry \"\(name)\""
        case .invalidEntryName(let why):
            return "invalid entry name: \(why)"
        case .entryTooLarge(let name, let limit):
            return "the entry \"\(name)\" is larger than \(limit) bytes"
        case .closed:
            return "the vault was locked while the operation ran: unlock it and try again"
        case .noSlotOfKind(let kind, let available):
            return "the vault has no \(kind) key slot (its slots: \(available)); add one with `passkey vault add-slot \(kind)`"
        case .noSuchSlot(let id):
            return "the vault has no key slot \(id) (see `passkey vault status`)"
        case .lastSlot(let id):
            return "slot \(id) is the vault's only key slot: removing it would leave no way to open the vault"
        case .tooManySlots(let limit):
            return "the vault already has \(limit) key slots, the most it holds"
        case .slotDoesNotOpen(let slot, let reason):
            return "key slot \(slot) did not open the vault: \(reason)"
        case .pcscUnavailable(let why), .cardNotPresent(let why), .noCard(let why), .cardBusy(let why),
             .cardHasNoKey(let why), .cardNotEnrolled(let why), .card(let why):
            return why
        case .wrongPIN(let tries):
            return tries == 1 ? "wrong PIN: 1 try left before the PIN is blocked"
                : "wrong PIN: \(tries) tries left before the PIN is blocked"
        case .pinBlocked:
            return "the card's PIN is blocked after too many wrong tries: unblock it with the PUK using `passkey card pin unblock`"
        case .securityKey(let error):
            return error.description
        case .securityKeyNotEnrolled(let why), .securityKeyUnsuitable(let why):
            return why
        }
    }
}
