import Base64
import Crypto
import Hexadecimal

/// The random values the servers hand out — codes, refresh tokens, state,
/// handles, binding-job tokens, client secrets — and the SHA-256 they are
/// kept under, never as issued.
package enum OpaqueSecret {
    /// 32 random bytes, base64url.
    package static func make() -> String { Base64URL.encode(AppKeys.randomBytes(32)) }

    package static func hash(_ secret: String) -> String {
        Hexadecimal.encode(Array(SHA256.hash(data: Array(secret.utf8))))
    }
}
