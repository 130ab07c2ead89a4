import CBOR
import Crypto
import FoundationEssentials

/// The two per-credential secrets of the hmac-secret extension (CTAP 2.1 §12.5):
/// one answers when the user was verified, the other when not, so a secret
/// derived with UV can never be obtained without it.
struct CredRandoms: Equatable {
    let withUV: [UInt8]
    let withoutUV: [UInt8]

    static func generate() -> CredRandoms {
        CredRandoms(withUV: secureRandomBytes(32), withoutUV: secureRandomBytes(32))
    }

    func select(userVerified: Bool) -> [UInt8] { userVerified ? withUV : withoutUV }
}

/// A getAssertion hmac-secret input, checked and decrypted before the user is
/// asked for anything (so a malformed request costs no touch).
struct HmacSecretRequest {
    let sharedSecret: PinUvAuthSharedSecret
    /// salt1, or salt1 ‖ salt2: 32 or 64 bytes.
    let salts: [UInt8]

    /// Parses `{1: keyAgreement, 2: saltEnc, 3: saltAuth, 4: pinUvAuthProtocol (default 1)}`.
    init(_ item: CBOR, keyAgreement: inout KeyAgreementKeys) throws(CTAPStatus) {
        let map = try RequestMap(item)
        guard let platformKey = map.raw(1) else { throw .missingParameter }
        let saltEnc = try map.requiredBytes(2)
        let saltAuth = try map.requiredBytes(3)
        let version = try PinUvAuthProtocol.read(map, key: 4) ?? .one
        let shared = try version.sharedSecret(authenticatorKey: keyAgreement[version], platformKey: platformKey)
        guard shared.verify(message: saltEnc, signature: saltAuth) else { throw .pinAuthInvalid }
        let salts = try shared.decrypt(saltEnc, malformed: .invalidLength)
        guard salts.count == 32 || salts.count == 64 else { throw .invalidLength }
        self.sharedSecret = shared
        self.salts = salts
    }

    /// encrypt(shared, HMAC(CredRandom, salt1) [‖ HMAC(CredRandom, salt2)]).
    func output(credRandom: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        let key = SymmetricKey(data: credRandom)
        var outputs = Array(HMAC<SHA256>.authenticationCode(for: salts[0..<32], using: key))
        if salts.count == 64 {
            outputs += Array(HMAC<SHA256>.authenticationCode(for: salts[32..<64], using: key))
        }
        return try sharedSecret.encrypt(outputs)
    }
}
