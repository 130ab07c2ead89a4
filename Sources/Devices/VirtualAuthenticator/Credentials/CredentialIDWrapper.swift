import Crypto
import FoundationEssentials
import WebAuthn

/// What a non-discoverable credential's id carries, sealed.
struct WrappedCredential {
    let key: CredentialKey
    let credProtect: CredProtect
    let credRandoms: CredRandoms?
}

/// Seals non-discoverable credentials into their own credential ids, so they
/// need no state: AES-256-GCM under a key derived from the master secret, with
/// the RP ID hash as associated data. An id presented for another RP, or
/// altered in any bit, fails authentication and is simply "not found".
///
/// Layout: version(1) ‖ nonce(12) ‖ ciphertext ‖ tag(16), where the plaintext is
/// algorithm(1: 1 ES256, 2 EdDSA) ‖ credProtect(1) ‖ flags(1: bit 0 = hmac-secret)
/// ‖ private key(32) [‖ CredRandomWithUV(32) ‖ CredRandomWithoutUV(32)].
/// Ids are 64 bytes, or 128 with hmac-secret.
struct CredentialIDWrapper {
    static let version: UInt8 = 0x01
    static let maximumLength = 1 + 12 + 3 + 32 + 64 + 16

    private let key: SymmetricKey

    init(masterSecret: [UInt8]) {
        key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: masterSecret),
                                     salt: Array("passkey-agent virtual authenticator".utf8),
                                     info: Array("credential id wrapping key v1".utf8),
                                     outputByteCount: 32)
    }

    func wrap(_ credential: WrappedCredential, rpIdHash: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(99)
        plaintext.append(credential.key.algorithm == .es256 ? 1 : 2)
        plaintext.append(credential.credProtect.rawValue)
        plaintext.append(credential.credRandoms == nil ? 0 : 1)
        plaintext += credential.key.rawRepresentation
        if let randoms = credential.credRandoms {
            plaintext += randoms.withUV
            plaintext += randoms.withoutUV
        }
        do {
            let sealed = try AES.GCM.seal(plaintext, using: key, nonce: AES.GCM.Nonce(),
                                          authenticating: [Self.version] + rpIdHash)
            return [Self.version] + [UInt8](sealed.nonce) + [UInt8](sealed.ciphertext) + [UInt8](sealed.tag)
        } catch {
            throw .other
        }
    }

    /// nil for anything that is not an intact id of ours for this RP.
    func unwrap(_ id: [UInt8], rpIdHash: [UInt8]) -> WrappedCredential? {
        guard id.count == 64 || id.count == 128, id[0] == Self.version,
              let nonce = try? AES.GCM.Nonce(data: id[1..<13]),
              let box = try? AES.GCM.SealedBox(nonce: nonce, ciphertext: id[13..<(id.count - 16)],
                                               tag: id[(id.count - 16)...]),
              let opened = try? AES.GCM.open(box, using: key, authenticating: [Self.version] + rpIdHash) else {
            return nil
        }
        let plaintext = [UInt8](opened)
        guard plaintext.count == 35 || plaintext.count == 99,
              let credProtect = CredProtect(rawValue: plaintext[1]) else { return nil }
        let algorithm: COSEAlgorithm
        switch plaintext[0] {
        case 1: algorithm = .es256
        case 2: algorithm = .edDSA
        default: return nil
        }
        let hasRandoms = plaintext[2] & 1 == 1
        guard hasRandoms == (plaintext.count == 99),
              let credentialKey = CredentialKey(algorithm: algorithm, raw: Array(plaintext[3..<35])) else {
            return nil
        }
        let randoms = hasRandoms
            ? CredRandoms(withUV: Array(plaintext[35..<67]), withoutUV: Array(plaintext[67..<99]))
            : nil
        return WrappedCredential(key: credentialKey, credProtect: credProtect, credRandoms: randoms)
    }
}
