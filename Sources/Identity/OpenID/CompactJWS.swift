import FoundationEssentials

/// A JWS in compact serialisation (RFC 7515 §7.1) taken apart far enough to
/// decide, before any key is touched, whether it may be verified at all: its
/// header's `alg` and `kid`, and its payload bytes. The signature itself is
/// jwt-kit's to check.
struct CompactJWS: Sendable {
    var header: Header
    var payload: [UInt8]
    var signature: [UInt8]

    /// No ID token comes near this; a larger one is refused unread.
    static let limit = 64 << 10

    struct Header: Decodable, Sendable {
        var alg: String
        var kid: String?
        /// Extensions the verifier must understand (RFC 7515 §4.1.11): we understand none.
        var crit: [String]?
    }

    init(_ token: String) throws(OpenIDError) {
        guard token.utf8.count <= Self.limit else { throw .idToken(.malformed("it is longer than \(Self.limit) bytes")) }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .idToken(.malformed(parts.count == 5 ? "it is encrypted (JWE), which is not supported" : "it is not a compact JWS"))
        }
        guard let headerBytes = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]) else {
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
