import CBOR
import Crypto
import CryptoExtras
import FoundationEssentials
import X509

/// The `packed` attestation statement format (WebAuthn L3 §8.2):
/// `{alg, sig}` for self attestation, `{alg, sig, x5c}` with a certificate.
enum PackedAttestation {
    static func fail(_ why: String) -> WebAuthnError { RelyingParty.fail("attStmt", why) }

    static func verify(statement: CBOR, authenticatorData: [UInt8], clientDataHash: [UInt8],
                       credential: AttestedCredentialData)
        throws(WebAuthnError) -> (type: AttestationType, certificates: [[UInt8]]) {
        guard let alg = statement["alg"]?.intValue else { throw fail("alg missing or not an integer") }
        guard let signature = statement["sig"]?.bytesValue else { throw fail("sig missing or not a byte string") }
        if statement["ecdaaKeyId"] != nil { throw fail("ECDAA attestation is not supported") }
        let signedData = authenticatorData + clientDataHash

        guard let x5c = statement["x5c"] else {
            // Self attestation: the credential key signs, under its own algorithm.
            guard Int(alg) == credential.publicKey.algorithm.rawValue else {
                throw fail("alg \(alg) differs from the credential key's \(credential.publicKey.algorithm.rawValue)")
            }
            guard credential.publicKey.isValidSignature(signature, for: signedData) else {
                throw fail("self-attestation signature does not verify with the credential key")
            }
            return (.self, [])
        }

        guard let chain = x5c.arrayValue, !chain.isEmpty else { throw fail("x5c must be a non-empty array") }
        var certificates: [[UInt8]] = []
        for (index, item) in chain.enumerated() {
            guard let der = item.bytesValue else { throw fail("x5c[\(index)] is not a byte string") }
            certificates.append(der)
        }
        let leaf: Certificate
        do { leaf = try Certificate(derEncoded: certificates[0]) } catch {
            throw fail("x5c[0] is not a DER X.509 certificate")
        }
        guard isValidSignature(signature, over: signedData, alg: Int(alg), key: leaf.publicKey) else {
            throw fail("signature does not verify with the attestation certificate's key under alg \(alg)")
        }
        try AttestationCertificateRequirements.check(leaf, aaguid: credential.aaguid)
        return (.basic, certificates)
    }

    /// Verifies with an attestation certificate's key. The key type must match
    /// `alg`; a mismatch fails rather than guessing.
    static func isValidSignature(_ signature: [UInt8], over message: [UInt8], alg: Int,
                                 key: Certificate.PublicKey) -> Bool {
        switch COSEAlgorithm(rawValue: alg) {
        case .es256:
            guard let key = P256.Signing.PublicKey(key),
                  let sig = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: SHA256.hash(data: message))
        case .es384:
            guard let key = P384.Signing.PublicKey(key),
                  let sig = try? P384.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: SHA384.hash(data: message))
        case .es512:
            guard let key = P521.Signing.PublicKey(key),
                  let sig = try? P521.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: SHA512.hash(data: message))
        case .edDSA:
            guard let key = Curve25519.Signing.PublicKey(key) else { return false }
            return key.isValidSignature(signature, for: message)
        case .rs256:
            guard let key = _RSA.Signing.PublicKey(key) else { return false }
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature),
                                        for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5)
        case .ps256:
            guard let key = _RSA.Signing.PublicKey(key) else { return false }
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature),
                                        for: SHA256.hash(data: message), padding: .PSS)
        case nil:
            return false
        }
    }
}
