import Crypto
import Hexadecimal
import ISO7816
import PIVWire

extension PIVApplet {
    /// GENERAL AUTHENTICATE (`00 87 alg ref`, data `7C …`): the management-key
    /// handshake for 9B, otherwise ECDH (`82 00 85 point`) or ECDSA
    /// (`82 00 81 hash`) with the key in the slot.
    func generalAuthenticate(_ command: CommandAPDU) throws(StatusError) -> ResponseAPDU {
        let template = try templateItems(PIVTag.dynamicAuthenticationTemplate, in: command.data)
        if command.p2 == PIVKeyReference.managementKey {
            return try authenticateManagementKey(algorithm: command.p1, template: template)
        }
        return try useSlotKey(slot: command.p2, algorithm: command.p1, template: template)
    }

    private func useSlotKey(slot: UInt8, algorithm: UInt8, template: [BERTLV]) throws(StatusError) -> ResponseAPDU {
        guard PIVKeyReference.keySlots.contains(slot) else { throw StatusError(.referencedDataNotFound) }
        guard let stored = state.key(in: slot) else { throw StatusError(.referencedDataNotFound) }
        guard algorithm == stored.algorithm else { throw StatusError(.incorrectP1P2) }
        guard let response = template.first(PIVTag.response), response.value.isEmpty else {
            throw StatusError(.incorrectData)
        }
        try checkKeyAccess(slot: slot, key: stored)
        guard let scalar = try? Hexadecimal.decode(stored.privateKey) else { throw StatusError(.memoryFailure) }

        if let peer = template.first(PIVTag.exponentiation) {
            guard let privateKey = try? P256.KeyAgreement.PrivateKey(rawRepresentation: scalar),
                  let peerKey = try? P256.KeyAgreement.PublicKey(x963Representation: peer.value),
                  let shared = try? privateKey.sharedSecretFromKeyAgreement(with: peerKey)
            else { throw StatusError(.incorrectData) }
            consumeAlwaysPIN(key: stored, slot: slot)
            return dynamicAuthenticationResponse(tag: PIVTag.response, value: shared.withUnsafeBytes { Array($0) })
        }
        if let challenge = template.first(PIVTag.challenge), !challenge.value.isEmpty {
            guard let privateKey = try? P256.Signing.PrivateKey(rawRepresentation: scalar),
                  let signature = try? privateKey.signature(for: PrehashedDigest(challenge.value))
            else { throw StatusError(.incorrectData) }
            consumeAlwaysPIN(key: stored, slot: slot)
            return dynamicAuthenticationResponse(tag: PIVTag.response, value: Array(signature.derRepresentation))
        }
        throw StatusError(.incorrectData)
    }

    /// The PIN policy the key was generated with, or the slot's own rule.
    func effectivePINPolicy(slot: UInt8, key: PIVCardState.KeyState) -> UInt8 {
        if key.pinPolicy != PIVCardConstants.PINPolicy.default { return key.pinPolicy }
        switch slot {
        case PIVKeyReference.signature: return PIVCardConstants.PINPolicy.always
        case PIVKeyReference.cardAuthentication: return PIVCardConstants.PINPolicy.never
        default: return PIVCardConstants.PINPolicy.once
        }
    }

    private func checkKeyAccess(slot: UInt8, key: PIVCardState.KeyState) throws(StatusError) {
        switch effectivePINPolicy(slot: slot, key: key) {
        case PIVCardConstants.PINPolicy.never:
            return
        case PIVCardConstants.PINPolicy.always:
            guard pinVerifiedForAlwaysKey else { throw StatusError(.securityStatusNotSatisfied) }
        default:
            guard pinVerified else { throw StatusError(.securityStatusNotSatisfied) }
        }
    }

    private func consumeAlwaysPIN(key: PIVCardState.KeyState, slot: UInt8) {
        if effectivePINPolicy(slot: slot, key: key) == PIVCardConstants.PINPolicy.always {
            pinVerifiedForAlwaysKey = false
        }
    }
}

/// A hash computed elsewhere, handed to swift-crypto's ECDSA as its digest.
/// ECDSA over P-256 uses the leftmost 256 bits of the hash (FIPS 186-5
/// §6.4.1); shorter hashes are left-padded with zeros, which leaves their
/// integer value unchanged.
struct PrehashedDigest: Digest {
    static let byteCount = 32
    private let bytes: [UInt8]

    init(_ hash: [UInt8]) {
        bytes = hash.count >= 32 ? Array(hash.prefix(32)) : [UInt8](repeating: 0, count: 32 - hash.count) + hash
    }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }

    var description: String { "PrehashedDigest" }
}
