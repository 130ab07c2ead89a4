import Crypto
import FoundationEssentials

/// What the authenticator keeps of the PIN: never the PIN, only a salted MAC
/// of LEFT(SHA-256(PIN), 16), the value platforms send as pinHashEnc.
struct PINRecord: Equatable {
    let salt: [UInt8]
    let verifier: [UInt8]
    /// The PIN's length in Unicode code points (CTAP 2.1 counts code points for minPINLength).
    let codePointCount: Int

    static let minimumCodePoints = 4
    /// A PIN travels zero-padded to 64 bytes, so at most 63 bytes remain for it.
    static let maximumBytes = 63

    init(salt: [UInt8], verifier: [UInt8], codePointCount: Int) {
        self.salt = salt
        self.verifier = verifier
        self.codePointCount = codePointCount
    }

    /// Builds the record for a new PIN decrypted from newPinEnc (64 bytes,
    /// zero padded), enforcing the PIN policy (CTAP 2.1 §6.5.5.5).
    init(paddedPIN: [UInt8]) throws(CTAPStatus) {
        guard paddedPIN.count == 64 else { throw .invalidParameter }
        let pin = Array(paddedPIN.prefix { $0 != 0 })
        guard pin.count <= Self.maximumBytes,
              let text = String(validating: pin, as: UTF8.self),
              text.unicodeScalars.count >= Self.minimumCodePoints else {
            throw .pinPolicyViolation
        }
        let pinHash = Array(SHA256.hash(data: pin).prefix(16))
        let salt = secureRandomBytes(32)
        self.init(salt: salt, verifier: Self.verifier(salt: salt, pinHash: pinHash),
                  codePointCount: text.unicodeScalars.count)
    }

    /// Whether `pinHash` (LEFT(SHA-256(PIN), 16) from the platform) matches.
    func matches(pinHash: [UInt8]) -> Bool {
        constantTimeEquals(Self.verifier(salt: salt, pinHash: pinHash), verifier)
    }

    private static func verifier(salt: [UInt8], pinHash: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: pinHash, using: SymmetricKey(data: salt)))
    }
}
