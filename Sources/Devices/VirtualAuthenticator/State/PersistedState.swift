import FoundationEssentials

/// The state file's JSON document (format 1). Byte strings are base64.
///
/// ```json
/// { "format": 1, "masterSecret": "…", "signatureCounterCeiling": 2048,
///   "pinRetries": 8, "uvRetries": 8, "pin": {"salt": "…", "verifier": "…", "codePoints": 6},
///   "nextCreationOrder": 3, "discoverableCredentials": [ { "id": "…", "rpId": "example.com", … } ] }
/// ```
struct PersistedState: Codable, Equatable {
    static let currentFormat = 1

    var format: Int
    /// 32 bytes: the root of the credential-id wrapping key. Replaced by Reset.
    var masterSecret: Data
    /// Counter values up to this may already have been used (see SignatureCounter).
    var signatureCounterCeiling: UInt32
    var pinRetries: Int
    var uvRetries: Int
    var pin: PersistedPIN?
    var nextCreationOrder: UInt64
    var discoverableCredentials: [PersistedCredential]
}

struct PersistedPIN: Codable, Equatable {
    var salt: Data
    /// HMAC-SHA-256(salt, LEFT(SHA-256(PIN), 16)).
    var verifier: Data
    var codePoints: Int
}

struct PersistedCredential: Codable, Equatable {
    var id: Data
    var rpId: String
    var rpName: String?
    var userId: Data
    var userName: String?
    var userDisplayName: String?
    /// COSE algorithm: -7 ES256 or -8 EdDSA.
    var algorithm: Int
    var privateKey: Data
    var credProtect: Int
    var credRandomWithUV: Data?
    var credRandomWithoutUV: Data?
    var creationOrder: UInt64
}
