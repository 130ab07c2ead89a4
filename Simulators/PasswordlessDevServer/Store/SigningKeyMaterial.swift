import Crypto
import CryptoExtras
import DevServerBase
import FoundationEssentials
import Hexadecimal

/// The authorization server's two signing keys, ES256 (P-256) and RS256
/// (2048-bit RSA), as PKCS#8 PEM with their key ids. Kept in the state file
/// with `--data-dir` (so a restart keeps the JWKS), in memory otherwise.
package struct SigningKeyMaterial: Codable, Sendable, Equatable {
    package var es256KeyId: String
    package var es256PrivateKeyPEM: String
    package var rs256KeyId: String
    package var rs256PrivateKeyPEM: String

    static func generate() throws -> SigningKeyMaterial {
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        return SigningKeyMaterial(
            es256KeyId: "es256-" + Hexadecimal.encode(AppKeys.randomBytes(8)),
            es256PrivateKeyPEM: P256.Signing.PrivateKey().pemRepresentation,
            rs256KeyId: "rs256-" + Hexadecimal.encode(AppKeys.randomBytes(8)),
            rs256PrivateKeyPEM: rsa.pemRepresentation)
    }
}
