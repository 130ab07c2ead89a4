import Crypto
import Hexadecimal
import PIV
import SmartCard

/// The PIV card of one of the vault's `piv` slots, found in whatever reader
/// it is and opened. Not thread-safe: use it from one task (or queue) at a time.
public final class PIVCard: @unchecked Sendable {
    public let readerName: String
    /// The slot this card opens.
    public let slot: KeySlot
    private let session: PIVSession
    private let parameters: PIVSlotParameters

    private init(session: PIVSession, slot: KeySlot, parameters: PIVSlotParameters) {
        self.session = session
        self.readerName = session.readerName
        self.slot = slot
        self.parameters = parameters
    }

    /// The card in `reader`, which must hold the key of one of `slots`; or,
    /// with no reader named, the first reader holding such a card. The card
    /// is recognised by its 9D public key, which only it can use.
    public static func find(for slots: [KeySlot], reader: String?) throws(VaultError) -> PIVCard {
        let context = try Self.pcsc()
        let candidates = slots.compactMap { slot -> (KeySlot, PIVSlotParameters)? in
            if case .piv(let parameters) = slot.protector { return (slot, parameters) }
            return nil
        }
        if let reader {
            let session = try Self.mapped { () throws(PIVError) in try PIVCardLocator.open(reader: reader, context: context) }
            let key = try Self.mapped { () throws(PIVError) in try session.publicKey(slot: .keyManagement) }
            guard let (slot, parameters) = candidates.first(where: { $0.1.cardPublicKey == key.x963Representation }) else {
                let serial = (try? session.serialNumber()).flatMap { $0 }.map { " (serial \($0))" } ?? ""
                throw .cardNotEnrolled("the card in \"\(reader)\"\(serial) is not one of the vault's cards; "
                    + "its piv slots are for \(candidates.map(\.1.cardDescription).joined(separator: ", "))")
            }
            return PIVCard(session: session, slot: slot, parameters: parameters)
        }
        for (slot, parameters) in candidates {
            let identity = PIVCardIdentity.keyManagementKey(Hexadecimal.encode(parameters.cardPublicKey))
            do {
                let session = try PIVCardLocator.open(identity: identity, context: context)
                return PIVCard(session: session, slot: slot, parameters: parameters)
            } catch .cardNotFound {
                continue
            } catch {
                throw Self.vaultError(error)
            }
        }
        let wanted = candidates.map(\.1.cardDescription)
        throw .cardNotPresent("insert \(wanted.joined(separator: " or ")) and try again")
    }

    /// The card's PIN tries left, without spending one; `.pinBlocked` when none are left.
    public func pinTriesLeft() throws(VaultError) -> Int? {
        switch try Self.mapped({ () throws(PIVError) in try session.pinState() }) {
        case .verified: return nil
        case .notVerified(let tries): return tries
        case .blocked: throw .pinBlocked
        }
    }

    /// Verifies the PIN, lets the card redo the slot's key agreement, and
    /// unwraps the data key. A wrong PIN is `.wrongPIN(triesLeft:)`; it is
    /// never retried here. Afterwards the card's PIN verification is reset,
    /// so the card does not stay usable without its PIN.
    public func open(pin: [UInt8], vaultId: [UInt8]) throws(VaultError) -> DataKey {
        let reference = PIVSlot(rawValue: parameters.keyReference) ?? .keyManagement
        let ephemeral: P256.KeyAgreement.PublicKey
        do {
            ephemeral = try P256.KeyAgreement.PublicKey(x963Representation: parameters.ephemeralPublicKey)
        } catch {
            throw .malformedHeader(path: "(key slot \(slot.id))", reason: "the ephemeral public key is not a P-256 point")
        }
        let secret = try Self.mapped { () throws(PIVError) -> SymmetricKey in
            try session.withTransaction { session throws(PIVError) -> SymmetricKey in
                try session.verifyPIN(pin)
                defer { try? session.forgetPINVerification() }
                return try session.sharedSecret(slot: reference, peer: ephemeral)
            }
        }
        return try slot.unwrap(with: parameters.derivation.wrappingKey(from: secret), vaultId: vaultId)
    }

    /// Reads what a new `piv` slot records from the card in `reader` (the only
    /// PIV card present when nil): its identity and its 9D public key. No PIN needed.
    public static func enrolmentFacts(reader: String?) throws(VaultError) -> EnrolmentFacts {
        let context = try Self.pcsc()
        return try mapped { () throws(PIVError) -> EnrolmentFacts in
            let session = try PIVCardLocator.open(reader: reader, context: context)
            let key = try session.publicKey(slot: .keyManagement)
            return EnrolmentFacts(readerName: session.readerName, publicKey: try key.keyAgreementKey,
                                  serialNumber: try session.serialNumber(), chuidGUID: try session.chuidGUID())
        }
    }

    /// A new `piv` slot for the card `facts` describe, wrapping `target`'s key.
    /// Only the card's public key is used: prove the slot with `find` and `open`.
    public static func makeSlot(for facts: EnrolmentFacts, target: EnrolmentTarget) throws(VaultError) -> KeySlot {
        try PIVSlotParameters.enrol(facts, target: target)
    }

    /// What identifies a card in a new slot.
    public struct EnrolmentFacts: Sendable {
        public var readerName: String
        public var publicKey: P256.KeyAgreement.PublicKey
        public var serialNumber: UInt32?
        public var chuidGUID: [UInt8]?
    }

    // MARK: Errors

    /// A new connection to pcscd (each card operation gets its own; a card's
    /// connection keeps its context alive).
    static func pcsc() throws(VaultError) -> SmartCardContext {
        do {
            return try SmartCardContext()
        } catch {
            throw vaultError(.smartCard(error))
        }
    }

    static func mapped<T>(_ body: () throws(PIVError) -> T) throws(VaultError) -> T {
        do {
            return try body()
        } catch {
            throw vaultError(error)
        }
    }

    static func vaultError(_ error: PIVError) -> VaultError {
        switch error {
        case .wrongPIN(let tries): return .wrongPIN(triesLeft: tries)
        case .pinBlocked: return .pinBlocked
        case .noKey, .unsupportedKey:
            return .cardHasNoKey("\(error.description): set the card up with `passkey card setup` first")
        case .cardNotFound: return .cardNotPresent(error.description)
        case .severalCards: return .noCard(error.description)
        case .smartCard(let cardError):
            switch cardError {
            case .serviceNotRunning: return .pcscUnavailable(cardError.description)
            case .noReaders, .readerNotFound, .noCard: return .noCard(cardError.description)
            case .cardRemoved: return .cardNotPresent(cardError.description)
            case .sharingViolation: return .cardBusy(cardError.description)
            default: return .card(cardError.description)
            }
        default: return .card(error.description)
        }
    }
}
