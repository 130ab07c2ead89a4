import Crypto
import Hexadecimal
import ISO7816
import PIVWire

extension PIVApplet {
    /// GENERATE ASYMMETRIC KEY PAIR (`00 47 00 slot`, data `AC L 80 01 alg [AA 01 pin] [AB 01 touch]`):
    /// replaces the slot's key with a fresh P-256 key and returns `7F49 L 86 41 04‖X‖Y`.
    func generateKeyPair(_ command: CommandAPDU) throws(StatusError) -> ResponseAPDU {
        guard command.p1 == 0x00 else { throw StatusError(.incorrectP1P2) }
        let slot = command.p2
        guard PIVKeyReference.keySlots.contains(slot) else { throw StatusError(.incorrectP1P2) }
        guard managementKeyAuthenticated else { throw StatusError(.securityStatusNotSatisfied) }

        let template = try templateItems(PIVTag.controlReferenceTemplate, in: command.data)
        guard let algorithm = template.first(PIVTag.algorithm)?.value, algorithm.count == 1 else {
            throw StatusError(.incorrectData)
        }
        guard algorithm[0] == PIVAlgorithmID.eccP256 else { throw StatusError(.incorrectData) }
        let pinPolicy = try policyByte(template.first(PIVTag.pinPolicy), allowed: 0...3)
        let touchPolicy = try policyByte(template.first(PIVTag.touchPolicy), allowed: 0...3)

        let privateKey = P256.Signing.PrivateKey()
        state.setKey(PIVCardState.KeyState(algorithm: algorithm[0],
                                           privateKey: Hexadecimal.encode(privateKey.rawRepresentation),
                                           pinPolicy: pinPolicy, touchPolicy: touchPolicy,
                                           origin: PIVMetadata.originGenerated),
                     in: slot)
        try persist()
        logger.info("generated a P-256 key", metadata: ["slot": "\(Hexadecimal.encode([slot]))"])
        let point = Array(privateKey.publicKey.x963Representation)
        let publicKey = BERTLV(tag: PIVTag.publicKeyTemplate,
                               children: [BERTLV(tag: PIVTag.ecPoint, value: point)])
        return ResponseAPDU(data: publicKey.encoded, status: .success)
    }

    private func policyByte(_ tlv: BERTLV?, allowed: ClosedRange<UInt8>) throws(StatusError) -> UInt8 {
        guard let tlv else { return 0 }
        guard tlv.value.count == 1, allowed.contains(tlv.value[0]) else { throw StatusError(.incorrectData) }
        return tlv.value[0]
    }

    /// The uncompressed public point of the key in `slot`, if any.
    func publicPoint(slot: UInt8) -> [UInt8]? {
        guard let stored = state.key(in: slot),
              let scalar = try? Hexadecimal.decode(stored.privateKey),
              let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar)
        else { return nil }
        return Array(key.publicKey.x963Representation)
    }
}
