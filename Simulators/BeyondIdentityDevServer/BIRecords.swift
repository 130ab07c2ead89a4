import FoundationEssentials
import WebAuthn

/// A person in realm r1.
package struct BIIdentity: Sendable {
    var id: String
    var displayName: String
    var username: String
    var email: String?

    package static func isValidUsername(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count) && !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}

/// A passkey bound to an identity: what a proof is checked against.
struct BIPasskey: Sendable {
    var credentialId: [UInt8]
    var identityId: String
    var publicKey: COSEKey
    var signCount: UInt32
    var backupEligible: Bool
}

/// One `/authorize` call waiting for its proof: single-use, short-lived,
/// bound to the nonce (the WebAuthn challenge) and the request JWT's `jti`.
struct BITransaction: Sendable {
    var jti: String
    var challenge: [UInt8]
    var allowCredentials: [[UInt8]]
    var redirectURI: String
    var state: String
    /// The OIDC client's nonce, repeated in the ID token.
    var clientNonce: String?
    var codeChallenge: String?
    var expiresAt: Date
    var used = false
}

/// A BI authorization code: single-use, 60 s, for `bi-okta` at its callback.
struct BICode: Sendable {
    static let lifetime: TimeInterval = 60

    var username: String
    var redirectURI: String
    var clientNonce: String?
    var codeChallenge: String?
    var authTime: Date
    var expiresAt: Date
    var spent = false
}

/// A credential binding job (RETURN delivery): its link's token (kept as a
/// hash), and, once begun, the registration challenge. It binds once.
struct BIBindingJob: Sendable {
    enum State: Sendable {
        case linkSent
        case begun(challenge: [UInt8])
        case complete
    }

    var identityId: String
    var tokenHash: String
    var postBindingRedirectURI: String?
    var expiresAt: Date
    var state: State = .linkSent
}
