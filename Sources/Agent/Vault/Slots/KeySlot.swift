import Crypto

/// One way to open the vault, as LUKS has key slots: a device-bound secret
/// that unwraps the data key, and what is needed to find that device again.
public struct KeySlot: Sendable, Equatable {
    public enum Kind: UInt8, Sendable, CaseIterable, CustomStringConvertible {
        /// A PIV card's key-management key (9D), by ECDH.
        case piv = 1
        /// A FIDO2 credential's hmac-secret.
        case fido2 = 2

        public var description: String { self == .piv ? "piv" : "fido2" }

        public init?(name: String) {
            guard let kind = Self.allCases.first(where: { $0.description == name }) else { return nil }
            self = kind
        }
    }

    public enum Protector: Sendable, Equatable {
        case piv(PIVSlotParameters)
        case fido2(FIDO2SlotParameters)
    }

    /// The slot's number (1–255), what `vault remove-slot` takes.
    public var id: UInt8
    public var protector: Protector
    var wrappedKey: WrappedDataKey

    public var kind: Kind {
        switch protector {
        case .piv: return .piv
        case .fido2: return .fido2
        }
    }

    /// "slot 1 (piv: card with serial 12345678)".
    public var label: String {
        switch protector {
        case .piv(let piv): return "slot \(id) (piv: \(piv.cardDescription))"
        case .fido2(let fido2): return "slot \(id) (fido2: \(fido2.deviceDescription))"
        }
    }

    static func aad(vaultId: [UInt8], slotId: UInt8, kind: Kind) -> [UInt8] {
        VaultFormat.slotAAD(version: VaultFormat.version, vaultId: vaultId, slotId: slotId, type: kind.rawValue)
    }

    /// Unwraps the data key with the key the slot's device produced.
    func unwrap(with wrappingKey: SymmetricKey, vaultId: [UInt8]) throws(VaultError) -> DataKey {
        guard let key = wrappedKey.unwrap(with: wrappingKey, aad: Self.aad(vaultId: vaultId, slotId: id, kind: kind)) else {
            throw .slotDoesNotOpen(slot: id, reason: kind == .piv
                ? "the card's key agreement gave a different secret (is it the card this slot was made for?)"
                : "the security key's hmac-secret gave a different secret (was the key reset, or its PIN use changed?)")
        }
        return key
    }

    // MARK: Encoding (docs/VAULT.md, "Key slot records")

    func encode(into writer: inout ByteWriter) {
        var body = ByteWriter()
        switch protector {
        case .piv(let piv): piv.encode(into: &body)
        case .fido2(let fido2): fido2.encode(into: &body)
        }
        wrappedKey.encode(into: &body)
        writer.append(id)
        writer.append(kind.rawValue)
        writer.appendLong(body.bytes)
    }

    static func decode(from reader: inout ByteReader) throws(FormatProblem) -> KeySlot {
        let id = try reader.byte("slot id")
        guard id != 0 else { throw FormatProblem("a key slot has id 0") }
        let type = try reader.byte("slot \(id) type")
        var body = ByteReader(try reader.long("slot \(id) body"))
        let protector: Protector
        switch Kind(rawValue: type) {
        case .piv: protector = .piv(try PIVSlotParameters.decode(from: &body))
        case .fido2: protector = .fido2(try FIDO2SlotParameters.decode(from: &body))
        case nil: throw FormatProblem("slot \(id) has unknown type \(type)")
        }
        let wrapped = try WrappedDataKey.decode(from: &body)
        try body.expectEnd("slot \(id) body")
        return KeySlot(id: id, protector: protector, wrappedKey: wrapped)
    }
}
