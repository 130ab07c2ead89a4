/// What the PIV layer reports about cards, in the one form both it and the
/// socket protocol use (the `card.*` methods' results): plain values, so a
/// client reads a card without linking pcsc-lite or the PIV client. Slots are
/// two lower-case hex digits ("9d"); public keys `{algorithm, point}` with
/// the point in hex.

/// `card.list`: every reader, its card, and the card's PIV state.
public struct CardInventoryReport: Sendable, Codable, Equatable {
    public var readers: [Reader]

    public init(readers: [Reader]) { self.readers = readers }

    public struct Reader: Sendable, Codable, Equatable {
        public var name: String
        public var cardPresent: Bool
        /// The card's ATR in hex.
        public var atr: String?
        /// "PIV", "FIDO": the applications that answered SELECT.
        public var applets: [String]
        public var piv: PIV?
        /// Why the card could not be inspected (busy, removed, …).
        public var error: String?

        public init(name: String, cardPresent: Bool, atr: String?, applets: [String], piv: PIV?, error: String?) {
            self.name = name
            self.cardPresent = cardPresent
            self.atr = atr
            self.applets = applets
            self.piv = piv
            self.error = error
        }
    }

    public struct PIV: Sendable, Codable, Equatable {
        public var firmwareVersion: String?
        public var serialNumber: UInt32?
        public var chuidGUID: String?
        /// Tries left before the PIN blocks; nil when the card does not say (PIN already verified).
        public var pinTriesLeft: Int?
        public var pinBlocked: Bool
        public var pukTriesLeft: Int?
        /// nil when the card does not say.
        public var pinIsDefault: Bool?
        public var pukIsDefault: Bool?
        public var managementKeyIsDefault: Bool?
        public var managementKeyAlgorithm: String?
        public var keys: [Key]

        public init(firmwareVersion: String?, serialNumber: UInt32?, chuidGUID: String?, pinTriesLeft: Int?,
                    pinBlocked: Bool, pukTriesLeft: Int?, pinIsDefault: Bool?, pukIsDefault: Bool?,
                    managementKeyIsDefault: Bool?, managementKeyAlgorithm: String?, keys: [Key]) {
            self.firmwareVersion = firmwareVersion
            self.serialNumber = serialNumber
            self.chuidGUID = chuidGUID
            self.pinTriesLeft = pinTriesLeft
            self.pinBlocked = pinBlocked
            self.pukTriesLeft = pukTriesLeft
            self.pinIsDefault = pinIsDefault
            self.pukIsDefault = pukIsDefault
            self.managementKeyIsDefault = managementKeyIsDefault
            self.managementKeyAlgorithm = managementKeyAlgorithm
            self.keys = keys
        }
    }

    public struct Key: Sendable, Codable, Equatable {
        /// Two lower-case hex digits ("9d").
        public var slot: String
        public var slotName: String
        /// "P-256", "RSA-2048", …; nil when only a certificate tells of the key and it is not P-256.
        public var algorithm: String?
        public var publicKey: CardPublicKey?
        public var certificateSubject: String?
        public var generatedOnCard: Bool?

        public init(slot: String, slotName: String, algorithm: String?, publicKey: CardPublicKey?,
                    certificateSubject: String?, generatedOnCard: Bool?) {
            self.slot = slot
            self.slotName = slotName
            self.algorithm = algorithm
            self.publicKey = publicKey
            self.certificateSubject = certificateSubject
            self.generatedOnCard = generatedOnCard
        }
    }
}

/// A public key on a card: `{"algorithm": "P-256", "point": "04…"}`.
public struct CardPublicKey: Sendable, Codable, Equatable, Hashable {
    public var algorithm: String
    /// The uncompressed point in lower-case hex.
    public var point: String

    public init(algorithm: String, point: String) {
        self.algorithm = algorithm
        self.point = point
    }
}

/// `card.plan`: what `card.setup` will do, shown before it asks for anything.
public struct CardSetupPlan: Sendable, Codable, Equatable {
    /// Whether the slot already holds a key.
    public enum ExistingKey: String, Sendable, Codable {
        case absent
        case present
        /// The card has no GET METADATA and no certificate in the slot: it may
        /// hold a key; setup checks again once the PIN is verified.
        case unknown
    }

    public var reader: String
    public var serialNumber: UInt32?
    /// Two lower-case hex digits ("9d").
    public var slot: String
    public var existingKey: ExistingKey
    public var existingCertificateSubject: String?
    /// Plain-language steps, in order.
    public var steps: [String]

    public init(reader: String, serialNumber: UInt32?, slot: String, existingKey: ExistingKey,
                existingCertificateSubject: String?, steps: [String]) {
        self.reader = reader
        self.serialNumber = serialNumber
        self.slot = slot
        self.existingKey = existingKey
        self.existingCertificateSubject = existingCertificateSubject
        self.steps = steps
    }
}

/// `card.setup`: the key and certificate now in the slot.
public struct CardSetupReport: Sendable, Codable, Equatable {
    public var reader: String
    public var serialNumber: UInt32?
    /// Two lower-case hex digits ("9d").
    public var slot: String
    public var publicKey: CardPublicKey
    public var certificateSubject: String
    public var replacedExistingKey: Bool
    /// nil when the card does not say (no GET METADATA).
    public var pinIsDefault: Bool?
    public var pukIsDefault: Bool?
    public var managementKeyIsDefault: Bool
    public var pinTriesLeft: Int?

    public init(reader: String, serialNumber: UInt32?, slot: String, publicKey: CardPublicKey, certificateSubject: String,
                replacedExistingKey: Bool, pinIsDefault: Bool?, pukIsDefault: Bool?, managementKeyIsDefault: Bool,
                pinTriesLeft: Int?) {
        self.reader = reader
        self.serialNumber = serialNumber
        self.slot = slot
        self.publicKey = publicKey
        self.certificateSubject = certificateSubject
        self.replacedExistingKey = replacedExistingKey
        self.pinIsDefault = pinIsDefault
        self.pukIsDefault = pukIsDefault
        self.managementKeyIsDefault = managementKeyIsDefault
        self.pinTriesLeft = pinTriesLeft
    }
}

/// `card.changePIN` and `card.unblockPIN`: what was done, and the tries left now.
public struct CardPINReport: Sendable, Codable, Equatable {
    public enum Operation: String, Sendable, Codable {
        case changePIN = "change-pin"
        case changePUK = "change-puk"
        case unblockPIN = "unblock-pin"
    }

    public var reader: String
    public var operation: Operation
    /// Tries the PIN has left now; nil when the card does not say.
    public var pinTriesLeft: Int?
    /// Tries the PUK has left now; nil when the card does not say.
    public var pukTriesLeft: Int?

    public init(reader: String, operation: Operation, pinTriesLeft: Int?, pukTriesLeft: Int?) {
        self.reader = reader
        self.operation = operation
        self.pinTriesLeft = pinTriesLeft
        self.pukTriesLeft = pukTriesLeft
    }
}
