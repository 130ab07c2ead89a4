import Base64
import Crypto
import FoundationEssentials

/// Proof Key for Code Exchange (RFC 7636) with the S256 method, always:
/// a public client on a user's machine MUST use it (RFC 8252 §8.1), and a
/// client that can do S256 MUST NOT use `plain` (RFC 7636 §4.2). The
/// verifier is a secret of the login in flight: it lives in memory only.
public struct PKCE: Sendable, Equatable {
    /// 43 characters of base64url: 32 random octets (RFC 7636 §4.1's recommendation).
    public let verifier: String
    /// BASE64URL(SHA-256(ASCII(verifier))).
    public let challenge: String
    public var method: String { "S256" }

    /// A fresh verifier from the system's random source.
    public init() {
        var generator = SystemRandomNumberGenerator()
        self.init(verifier: Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))
    }

    /// The pair for a given verifier (RFC 7636 Appendix B checks it).
    public init(verifier: String) {
        self.verifier = verifier
        challenge = Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))
    }
}

/// Printed or logged, a PKCE pair shows its method only: the verifier is a secret.
extension PKCE: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "PKCE(\(method), verifier hidden)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["method": method]) }
}
