import Crypto
import CryptoExtras
import FoundationEssentials
import WebAuthn

/// The DER SubjectPublicKeyInfo of a credential key: what
/// `AuthenticatorAttestationResponse.getPublicKey()` returns (WebAuthn L3 §5.2.1.1).
enum SubjectPublicKeyInfo {
    /// The fixed prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410 §4):
    /// SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING (32 bytes) }.
    private static let ed25519Prefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]

    static func der(for key: COSEKey) -> [UInt8]? {
        switch key {
        case .es256(let x, let y):
            return (try? P256.Signing.PublicKey(rawRepresentation: x + y)).map { [UInt8]($0.derRepresentation) }
        case .ed25519(let x):
            return ed25519Prefix + x
        case .rs256(let n, let e):
            return (try? _RSA.Signing.PublicKey(n: Data(n), e: Data(e))).map { [UInt8]($0.derRepresentation) }
        }
    }
}
