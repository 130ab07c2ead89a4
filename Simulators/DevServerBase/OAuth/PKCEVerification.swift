import Base64
import Crypto
import WebAuthn

/// The server's side of PKCE, RFC 7636 with S256 only: the checks on a
/// challenge and a verifier, and whether they match (challenge =
/// BASE64URL(SHA-256(ASCII(verifier)))).
package enum PKCEVerification {
    /// An S256 challenge is a SHA-256 in base64url: exactly 43 characters.
    package static func isValidChallenge(_ text: String) -> Bool {
        text.utf8.count == 43 && text.utf8.allSatisfy(isBase64URL)
    }

    /// 43–128 characters from `[A-Za-z0-9-._~]` (§4.1).
    package static func isValidVerifier(_ text: String) -> Bool {
        (43...128).contains(text.utf8.count) && text.utf8.allSatisfy { isBase64URL($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "~") }
    }

    package static func verifier(_ verifier: String, matches challenge: String) -> Bool {
        let computed = Array(Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8)))).utf8)
        let expected = Array(challenge.utf8)
        guard computed.count == expected.count else { return false }
        // Constant time: the comparison does not say how much of it matched.
        return zip(computed, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
