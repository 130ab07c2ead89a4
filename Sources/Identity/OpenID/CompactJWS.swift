import Base64
import FoundationEssentials

/// A JWS in compact serialisation (RFC 7515 §7.1) taken apart far enough to
/// decide, before any key is touched, whether it may be verified at all: its
/// header's `alg` and `kid`, and its payload bytes. The signature itself is
/// jwt-kit's to check. Public for BeyondIdentity, whose request JWTs are
/// taken apart the same way.
public struct CompactJWS: Sendable {
    public var header: Header
    public var payload: [UInt8]
    public var signature: [UInt8]

    /// No ID token comes near this; a larger one is refused unread.
    public static let limit = 64 << 10

    public struct Header: Decodable, Sendable {
        public var alg: String
        public var kid: String?
        /// The URL of the signer's JWKS (RFC 7515 §4.1.2): ID tokens ignore
        /// it; a Beyond Identity request JWT names its key set with it.
        public var jku: String?
        /// Extensions the verifier must understand (RFC 7515 §4.1.11): we understand none.
        public var crit: [String]?
    }

    public init(_ token: String) throws(OpenIDError) {
        guard token.utf8.count <= Self.limit else { throw .idToken(.malformed("it is longer than \(Self.limit) bytes")) }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .idToken(.malformed(parts.count == 5 ? "it is encrypted (JWE), which is not supported" : "it is not a compact JWS"))
        }
        // JOSE's base64url has no padding (RFC 7515 §2); the whole token is already within `limit`.
        guard let headerBytes = Base64URL.decode(parts[0], padding: .refused), let payload = Base64URL.decode(parts[1], padding: .refused),
              let signature = Base64URL.decode(parts[2], padding: .refused) else {
            throw .idToken(.malformed("it is not base64url"))
        }
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(headerBytes))
        } catch {
            throw .idToken(.malformed("its header is not a JSON object with a string `alg`"))
        }
        if let crit = header.crit, !crit.isEmpty { throw .idToken(.malformed("its header names critical extensions")) }
        self.payload = payload
        self.signature = signature
    }
}
