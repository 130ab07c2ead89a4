import CBOR
import Crypto
import CryptoExtras
import FoundationEssentials

/// PIN/UV auth protocols 1 and 2 (CTAP 2.1 §6.5.6, §6.5.7), authenticator side.
enum PinUvAuthProtocol: UInt8, CaseIterable, Sendable {
    case one = 1
    case two = 2

    /// GetInfo order: most preferred first.
    static let advertised: [PinUvAuthProtocol] = [.two, .one]

    /// Reads request key `key` (pinUvAuthProtocol): absent → nil;
    /// a number we do not implement → INVALID_PARAMETER.
    static func read(_ map: RequestMap, key: CBOR) throws(CTAPStatus) -> PinUvAuthProtocol? {
        guard let number = try map.unsigned(key) else { return nil }
        guard number <= UInt8.max, let version = PinUvAuthProtocol(rawValue: UInt8(number)) else {
            throw .invalidParameter
        }
        return version
    }

    /// authenticate(key, message) truncated per protocol: protocol 1 keeps 16 bytes.
    func authenticate(key: SymmetricKey, message: [UInt8]) -> [UInt8] {
        let mac = Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
        return self == .one ? Array(mac.prefix(16)) : mac
    }

    /// verify(key, message, signature) with a constant-time comparison.
    func verify(key: SymmetricKey, message: [UInt8], signature: [UInt8]) -> Bool {
        let expectedLength = self == .one ? 16 : 32
        guard signature.count == expectedLength else { return false }
        return constantTimeEquals(authenticate(key: key, message: message), signature)
    }

    /// Agrees on a shared secret with the platform's COSE key: ECDH, then the
    /// protocol's KDF (§6.5.6: SHA-256(Z); §6.5.7: two HKDF-SHA-256 halves).
    func sharedSecret(authenticatorKey: P256.KeyAgreement.PrivateKey,
                      platformKey: CBOR) throws(CTAPStatus) -> PinUvAuthSharedSecret {
        let platform = try Self.platformPublicKey(platformKey)
        let z: [UInt8]
        do {
            let secret = try authenticatorKey.sharedSecretFromKeyAgreement(with: platform)
            z = secret.withUnsafeBytes { Array($0) }
        } catch {
            throw .invalidParameter
        }
        let ikm = SymmetricKey(data: z)
        switch self {
        case .one:
            let key = SymmetricKey(data: Array(SHA256.hash(data: z)))
            return PinUvAuthSharedSecret(version: self, hmacKey: key, aesKey: key)
        case .two:
            let salt = [UInt8](repeating: 0, count: 32)
            let hmacKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt,
                                                 info: Array("CTAP2 HMAC key".utf8), outputByteCount: 32)
            let aesKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt,
                                                info: Array("CTAP2 AES key".utf8), outputByteCount: 32)
            return PinUvAuthSharedSecret(version: self, hmacKey: hmacKey, aesKey: aesKey)
        }
    }

    /// The platform's key-agreement key: a COSE EC2 P-256 key. The alg member
    /// (-25 by convention) is not checked; the point must be on the curve.
    static func platformPublicKey(_ item: CBOR) throws(CTAPStatus) -> P256.KeyAgreement.PublicKey {
        let map = try RequestMap(item)
        guard try map.integer(1) == 2, try map.integer(-1) == 1 else { throw .invalidParameter }
        let x = try map.requiredBytes(-2)
        let y = try map.requiredBytes(-3)
        guard x.count == 32, y.count == 32,
              let key = try? P256.KeyAgreement.PublicKey(rawRepresentation: x + y) else {
            throw .invalidParameter
        }
        return key
    }

    /// The authenticator's key-agreement key as getKeyAgreement returns it:
    /// COSE EC2 with alg -25 (ECDH-ES+HKDF-256, fixed by §6.5.6 whatever the KDF).
    static func coseKey(_ key: P256.KeyAgreement.PublicKey) -> CBOR {
        let raw = [UInt8](key.rawRepresentation)
        return [1: 2, 3: -25, -1: 1, -2: .bytes(Array(raw[0..<32])), -3: .bytes(Array(raw[32..<64]))]
    }
}

/// The result of key agreement for one request: MAC and encryption keys.
struct PinUvAuthSharedSecret {
    let version: PinUvAuthProtocol
    let hmacKey: SymmetricKey
    let aesKey: SymmetricKey

    func verify(message: [UInt8], signature: [UInt8]) -> Bool {
        version.verify(key: hmacKey, message: message, signature: signature)
    }

    /// AES-256-CBC without padding: protocol 1 with an all-zero IV; protocol 2
    /// with a random IV prepended. `plaintext` must be whole blocks.
    func encrypt(_ plaintext: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        guard !plaintext.isEmpty, plaintext.count % 16 == 0 else { throw .other }
        let iv = version == .one ? [UInt8](repeating: 0, count: 16) : secureRandomBytes(16)
        do {
            let ciphertext = try AES._CBC.encrypt(plaintext, using: aesKey,
                                                  iv: AES._CBC.IV(ivBytes: iv), noPadding: true)
            return version == .one ? [UInt8](ciphertext) : iv + [UInt8](ciphertext)
        } catch {
            throw .other
        }
    }

    /// The inverse of `encrypt`. A ciphertext of a length no encryption could
    /// produce is the caller's chosen error (`malformed`).
    func decrypt(_ ciphertext: [UInt8], malformed: CTAPStatus = .invalidParameter) throws(CTAPStatus) -> [UInt8] {
        let iv: [UInt8], body: ArraySlice<UInt8>
        switch version {
        case .one:
            iv = [UInt8](repeating: 0, count: 16)
            body = ciphertext[...]
        case .two:
            guard ciphertext.count >= 16 else { throw malformed }
            iv = Array(ciphertext.prefix(16))
            body = ciphertext.dropFirst(16)
        }
        guard !body.isEmpty, body.count % 16 == 0 else { throw malformed }
        do {
            let plaintext = try AES._CBC.decrypt(body, using: aesKey,
                                                 iv: AES._CBC.IV(ivBytes: iv), noPadding: true)
            return [UInt8](plaintext)
        } catch {
            throw malformed
        }
    }
}
