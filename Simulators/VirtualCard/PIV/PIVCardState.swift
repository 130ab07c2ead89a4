import Crypto
import FoundationEssentials
import Hexadecimal
import ISO7816
import PIVWire

/// Everything the virtual PIV card keeps between runs. It is written as one
/// JSON document (see `CardStateFile`); byte strings are lower-case hex.
///
/// The file is a secret: it holds the private keys and the management key in
/// the clear, as a card's own memory would. PIN and PUK are kept only as
/// salted HMAC-SHA-256 digests, so the file does not show them to a reader.
struct PIVCardState: Codable, Equatable {
    /// Bumped when the layout changes incompatibly.
    static let currentFormat = 1

    var format: Int
    var serialNumber: UInt32
    var pin: ReferenceData
    var puk: ReferenceData
    var managementKey: ManagementKeyState
    /// Keys by slot, the slot as two hex digits ("9d").
    var keys: [String: KeyState]
    /// Data objects by tag, as hex ("5fc102"); values are the contents of tag 53.
    var objects: [String: String]

    /// A PIN or PUK: a salted digest of its 8-byte padded form, and its retry counter.
    struct ReferenceData: Codable, Equatable {
        var salt: String
        var digest: String
        var retriesLeft: Int
        var retriesTotal: Int
        var isDefault: Bool

        init(value padded: [UInt8], retries: Int, isDefault: Bool) {
            let salt = SymmetricKey(size: .bits256)
            self.salt = salt.withUnsafeBytes { Hexadecimal.encode($0) }
            self.digest = Self.digest(of: padded, salt: salt)
            self.retriesLeft = retries
            self.retriesTotal = retries
            self.isDefault = isDefault
        }

        /// Constant-time comparison of `padded` with the stored value.
        func matches(_ padded: [UInt8]) -> Bool {
            guard let salt = try? Hexadecimal.decode(salt), let stored = try? Hexadecimal.decode(digest) else {
                return false
            }
            return HMAC<SHA256>.isValidAuthenticationCode(stored, authenticating: padded,
                                                           using: SymmetricKey(data: salt))
        }

        mutating func replace(with padded: [UInt8], isDefault: Bool) {
            self = ReferenceData(value: padded, retries: retriesTotal, isDefault: isDefault)
        }

        private static func digest(of value: [UInt8], salt: SymmetricKey) -> String {
            Hexadecimal.encode(HMAC<SHA256>.authenticationCode(for: value, using: salt))
        }
    }

    struct ManagementKeyState: Codable, Equatable {
        var algorithm: UInt8
        var key: String
        var isDefault: Bool
    }

    struct KeyState: Codable, Equatable {
        var algorithm: UInt8
        /// The P-256 private scalar (32 bytes).
        var privateKey: String
        var pinPolicy: UInt8
        var touchPolicy: UInt8
        var origin: UInt8
    }
}

extension PIVCardState {
    /// A card as it leaves the factory: default PIN, PUK and management key,
    /// no keys, and fresh CHUID and CCC objects with random identifiers.
    static func factoryNew() -> PIVCardState {
        var serial: UInt32 = 0
        while serial < 10_000_000 { serial = UInt32.random(in: 10_000_000...99_999_999) }
        var state = PIVCardState(
            format: currentFormat,
            serialNumber: serial,
            pin: ReferenceData(value: PIVPadding.pad(PIVFactoryDefaults.pin), retries: PIVCardConstants.defaultRetries, isDefault: true),
            puk: ReferenceData(value: PIVPadding.pad(PIVFactoryDefaults.puk), retries: PIVCardConstants.defaultRetries, isDefault: true),
            managementKey: ManagementKeyState(algorithm: PIVAlgorithmID.tripleDES,
                                              key: Hexadecimal.encode(PIVFactoryDefaults.managementKey),
                                              isDefault: true),
            keys: [:],
            objects: [:])
        state.setObject(PIVObjectTag.cardholderUniqueIdentifier, PIVStandardObjects.cardholderUniqueIdentifier(guid: randomBytes(16)))
        state.setObject(PIVObjectTag.cardCapabilityContainer,
                        PIVStandardObjects.cardCapabilityContainer(cardIdentifier: randomBytes(14)))
        return state
    }

    func object(_ tag: UInt32) -> [UInt8]? {
        objects[Self.objectKey(tag)].flatMap { try? Hexadecimal.decode($0) }
    }

    mutating func setObject(_ tag: UInt32, _ value: [UInt8]?) {
        objects[Self.objectKey(tag)] = value.map { Hexadecimal.encode($0) }
    }

    func key(in slot: UInt8) -> KeyState? { keys[Self.slotKey(slot)] }

    mutating func setKey(_ key: KeyState?, in slot: UInt8) { keys[Self.slotKey(slot)] = key }

    static func objectKey(_ tag: UInt32) -> String { Hexadecimal.encode(TLVTag(tag).bytes) }
    static func slotKey(_ slot: UInt8) -> String { Hexadecimal.encode([slot]) }
}

func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}
