import DevServerBase
import FoundationEssentials
import WebAuthn

/// Everything the devserver keeps, as one value: the app's keys, its
/// credentials and aliases, and the ids of spent single-use tokens. With
/// `--data-dir` it is written, whole, to `devserver.json` after each change
/// (docs/DEVSERVER.md "Store").
struct StoreState: Codable, Sendable, Equatable {
    static let currentFormat = 1

    /// Bumped when the layout changes incompatibly; an unknown format is refused, not guessed at.
    var format: Int
    var keys: AppKeys
    var credentials: [RegisteredCredential]
    var aliases: [StoredAlias]
    /// Spent session and verify token ids, with their expiry: kept until the
    /// token could not be accepted anyway, so a restart does not reopen replays.
    var spentTokens: [String: Date]
    /// The authorization server's signing keys; absent in files written
    /// before it existed, and then added at the next start.
    var oauthSigningKeys: SigningKeyMaterial?

    init(keys: AppKeys) {
        format = Self.currentFormat
        self.keys = keys
        credentials = []
        aliases = []
        spentTokens = [:]
    }
}

/// A registered credential: the WebAuthn credential record plus what the
/// hosted API stores beside it.
struct RegisteredCredential: Codable, Sendable, Equatable {
    var credentialId: Base64URLBytes
    var userId: String
    /// The COSE key, as the authenticator encoded it.
    var publicKey: Base64URLBytes
    var signCount: UInt32
    var aaguid: Base64URLBytes
    var attestationFormat: String
    var transports: [AuthenticatorTransport]
    /// The client's `credProps.rk`, when it reported one.
    var isDiscoverable: Bool?
    var backupEligible: Bool
    var backupState: Bool
    var rpId: String
    var origin: String
    var device: String?
    var country: String?
    var nickname: String?
    var createdAt: Date
    var lastUsedAt: Date
}

/// An alias: the hosted API stores base64(SHA-256(appId ‖ alias)) and the
/// plaintext only when hashing is off.
package struct StoredAlias: Codable, Sendable, Equatable {
    var userId: String
    var hash: String
    package var plaintext: String?
}
