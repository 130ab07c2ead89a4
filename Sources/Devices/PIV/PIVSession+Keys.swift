import Crypto
import FoundationEssentials
import ISO7816
import PIVWire

extension PIVSession {
    /// Generates a new P-256 key pair in `slot`, replacing any key there
    /// (needs management-key authentication). Returns the public key.
    public func generateKey(in slot: PIVSlot, pinPolicy: PIVPINPolicy = .default,
                            touchPolicy: PIVTouchPolicy = .default) throws(PIVError) -> PIVPublicKey {
        var parameters = [BERTLV(tag: PIVTag.algorithm, value: [PIVAlgorithm.eccP256.rawValue])]
        if pinPolicy != .default { parameters.append(BERTLV(tag: PIVTag.pinPolicy, value: [pinPolicy.rawValue])) }
        if touchPolicy != .default { parameters.append(BERTLV(tag: PIVTag.touchPolicy, value: [touchPolicy.rawValue])) }
        let data = try perform(
            CommandAPDU(ins: PIVInstruction.generateAsymmetricKeyPair, p1: 0x00, p2: slot.rawValue,
                        data: BERTLV(tag: PIVTag.controlReferenceTemplate, children: parameters).encoded, expectedLength: 256),
            operation: "generating a key",
            failure: { status in
                status == .securityStatusNotSatisfied ? .managementKeyRequired(operation: "generating a key") : nil
            })
        do {
            let (template, _) = try BERTLV.parseFirst(data)
            guard template.tag == PIVTag.publicKeyTemplate, let point = try template.children().first(PIVTag.ecPoint)?.value else {
                throw PIVError.malformedResponse(operation: "generating a key", reason: "no 7F49/86 public key")
            }
            return try PIVPublicKey(p256Point: point)
        } catch let error as PIVError {
            throw error
        } catch {
            throw .malformedResponse(operation: "generating a key", reason: "\(error)")
        }
    }

    /// ECDH with the key in `slot` (GENERAL AUTHENTICATE, tag 85): returns the
    /// 32-byte shared x-coordinate, as swift-crypto's `sharedSecretFromKeyAgreement` would.
    /// Needs the PIN verified for 9A/9C/9D (`.pinRequired` otherwise).
    public func sharedSecret(slot: PIVSlot = .keyManagement,
                             peer: P256.KeyAgreement.PublicKey) throws(PIVError) -> SymmetricKey {
        let request = Self.dynamicAuthentication([BERTLV(tag: PIVTag.response, value: []),
                                                  BERTLV(tag: PIVTag.exponentiation, value: Array(peer.x963Representation))])
        var secret = try useKey(slot: slot, request: request, operation: "key agreement")
        defer { PIVSecret.wipe(&secret) }
        guard secret.count == 32 else {
            throw .malformedResponse(operation: "key agreement", reason: "shared secret of \(secret.count) bytes, not 32")
        }
        return SymmetricKey(data: secret)
    }

    /// ECDSA with the key in `slot` over a precomputed hash (SHA-256 for P-256).
    public func signature(slot: PIVSlot, digest: [UInt8]) throws(PIVError) -> P256.Signing.ECDSASignature {
        let request = Self.dynamicAuthentication([BERTLV(tag: PIVTag.response, value: []), BERTLV(tag: PIVTag.challenge, value: digest)])
        let der = try useKey(slot: slot, request: request, operation: "signing")
        do {
            return try P256.Signing.ECDSASignature(derRepresentation: der)
        } catch {
            throw .malformedResponse(operation: "signing", reason: "not a DER ECDSA signature")
        }
    }

    /// The public key of `slot`: from GET METADATA when the card has it,
    /// otherwise from the slot's certificate. Throws `.noKey` when neither tells.
    public func publicKey(slot: PIVSlot) throws(PIVError) -> PIVPublicKey {
        if let metadata = try keyMetadata(slot: slot) {
            guard metadata.algorithm == .eccP256, let key = metadata.publicKey else {
                throw .unsupportedKey(slot: slot, algorithm: metadata.algorithm.description)
            }
            return key
        }
        guard let certificate = try certificate(slot: slot) else { throw .noKey(slot: slot) }
        return try PIVCertificates.publicKey(of: certificate, slot: slot)
    }

    private func useKey(slot: PIVSlot, request: [UInt8], operation: String) throws(PIVError) -> [UInt8] {
        let data = try perform(
            CommandAPDU(ins: PIVInstruction.generalAuthenticate, p1: PIVAlgorithm.eccP256.rawValue, p2: slot.rawValue,
                        data: request, expectedLength: 256),
            operation: operation,
            failure: { status in
                switch status {
                case .securityStatusNotSatisfied: return .pinRequired(slot: slot)
                case .referencedDataNotFound, .fileNotFound: return .noKey(slot: slot)
                default: return nil
                }
            })
        return try Self.dynamicAuthenticationValue(data, tag: PIVTag.response, operation: operation)
    }
}
