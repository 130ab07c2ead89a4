import Crypto
import Hexadecimal
import PIV

/// A `piv` key slot: the data key wrapped under ECDH between an ephemeral
/// P-256 key (thrown away after enrolment) and the card's key-management
/// key (9D), through HKDF-SHA-256 — as age-plugin-yubikey does. Opening it
/// needs the card to redo the ECDH (GENERAL AUTHENTICATE), which needs its PIN.
public struct PIVSlotParameters: Sendable, Equatable {
    /// The PIV key reference the card agrees with (0x9D).
    public var keyReference: UInt8
    /// The card's public key, uncompressed (65 bytes).
    public var cardPublicKey: [UInt8]
    /// The ephemeral public key the card agrees with, uncompressed (65 bytes).
    var ephemeralPublicKey: [UInt8]
    var derivation: SlotKeyDerivation
    /// The card's Yubico serial number, when it has one.
    public var serialNumber: UInt32?
    /// The card's CHUID GUID (16 bytes), when it has one.
    public var chuidGUID: [UInt8]?
    /// The reader the card was in at enrolment: a hint for messages, not a requirement.
    public var readerName: String

    /// "the card with serial 12345678 (last seen in "Virtual PCD 00 00")".
    public var cardDescription: String {
        var text: String
        if let serialNumber {
            text = "the card with serial \(serialNumber)"
        } else if let chuidGUID {
            text = "the card with CHUID GUID \(Hexadecimal.encode(chuidGUID))"
        } else {
            text = "the card whose 9D key is \(Hexadecimal.encode(Array(cardPublicKey.dropFirst().prefix(8))))…"
        }
        if !readerName.isEmpty { text += " (last seen in \"\(readerName)\")" }
        return text
    }

    /// The identities `PIVCardLocator` can find the card by, most specific first.
    var identities: [PIVCardIdentity] {
        var found: [PIVCardIdentity] = []
        if let serialNumber { found.append(.serialNumber(serialNumber)) }
        if let chuidGUID { found.append(.chuidGUID(Hexadecimal.encode(chuidGUID))) }
        found.append(.keyManagementKey(Hexadecimal.encode(cardPublicKey)))
        return found
    }

    /// Wraps `dataKey` for the card whose 9D public key is `cardKey`. Needs no
    /// card: the ECDH runs in software against the public key.
    static func enrol(_ facts: PIVCard.EnrolmentFacts, target: EnrolmentTarget) throws(VaultError) -> KeySlot {
        let ephemeral = P256.KeyAgreement.PrivateKey()
        let shared: SymmetricKey
        do {
            shared = try ephemeral.sharedSecretFromKeyAgreement(with: facts.publicKey).withUnsafeBytes { SymmetricKey(data: $0) }
        } catch {
            throw .cardHasNoKey("the card's 9D public key cannot be used for key agreement")
        }
        let derivation = SlotKeyDerivation.fresh(info: VaultFormat.pivInfo)
        let wrapped = try WrappedDataKey.wrap(target.dataKey, with: derivation.wrappingKey(from: shared),
                                              aad: KeySlot.aad(vaultId: target.vaultId, slotId: target.slotId, kind: .piv))
        let parameters = PIVSlotParameters(
            keyReference: PIVSlot.keyManagement.rawValue, cardPublicKey: Array(facts.publicKey.x963Representation),
            ephemeralPublicKey: Array(ephemeral.publicKey.x963Representation), derivation: derivation,
            serialNumber: facts.serialNumber, chuidGUID: facts.chuidGUID.flatMap { $0.count == 16 ? $0 : nil },
            readerName: facts.readerName.truncatedToUTF8Bytes(255))
        return KeySlot(id: target.slotId, protector: .piv(parameters), wrappedKey: wrapped)
    }

    // MARK: Encoding (docs/VAULT.md, "piv slot body")

    func encode(into writer: inout ByteWriter) {
        writer.append(keyReference)
        writer.append(cardPublicKey)
        writer.append(ephemeralPublicKey)
        derivation.encode(into: &writer)
        var flags: UInt8 = 0
        if serialNumber != nil { flags |= 0x01 }
        if chuidGUID != nil { flags |= 0x02 }
        writer.append(flags)
        writer.append(serialNumber ?? 0)
        writer.append(chuidGUID ?? [UInt8](repeating: 0, count: 16))
        writer.appendShort(Array(readerName.utf8))
    }

    static func decode(from reader: inout ByteReader) throws(FormatProblem) -> PIVSlotParameters {
        let reference = try reader.byte("PIV key reference")
        guard PIVSlot(rawValue: reference) != nil else { throw FormatProblem("\(reference) is not a PIV key slot") }
        let cardKey = try reader.take(VaultFormat.p256PointLength, "card public key")
        let ephemeral = try reader.take(VaultFormat.p256PointLength, "ephemeral public key")
        for (name, point) in [("card", cardKey), ("ephemeral", ephemeral)] {
            guard (try? P256.KeyAgreement.PublicKey(x963Representation: point)) != nil else {
                throw FormatProblem("the \(name) public key is not a P-256 point")
            }
        }
        let derivation = try SlotKeyDerivation.decode(from: &reader)
        let flags = try reader.byte("identity flags")
        guard flags & ~0x03 == 0 else { throw FormatProblem("unknown identity flags \(flags)") }
        let serial = try reader.uint32("serial number")
        let guid = try reader.take(16, "CHUID GUID")
        guard let readerName = String(validating: try reader.short("reader name"), as: UTF8.self) else {
            throw FormatProblem("the reader name is not UTF-8")
        }
        return PIVSlotParameters(keyReference: reference, cardPublicKey: cardKey, ephemeralPublicKey: ephemeral,
                                 derivation: derivation, serialNumber: flags & 0x01 != 0 ? serial : nil,
                                 chuidGUID: flags & 0x02 != 0 ? guid : nil, readerName: readerName)
    }
}

extension String {
    /// The longest prefix of whole characters that fits in `limit` UTF-8 bytes.
    func truncatedToUTF8Bytes(_ limit: Int) -> String {
        var result = ""
        var used = 0
        for character in self {
            let size = character.utf8.count
            if used + size > limit { break }
            result.append(character)
            used += size
        }
        return result
    }
}
