import DevServerBase
import FoundationEssentials
import WebAuthn

/// What every token carries: a unique id (for single use) and its expiry.
package protocol PasswordlessTokenClaims: Codable, Sendable {
    var tokenId: String { get }
    var expiresAt: Date { get }
}

extension PasswordlessTokenClaims {
    /// Refuses an expired token with the hosted API's 403 and title.
    func checkNotExpired(now: Date) throws(APIProblem) {
        guard now < expiresAt else {
            throw .expiredToken(secondsAgo: max(1, Int(now.timeIntervalSince(expiresAt).rounded(.up))))
        }
    }
}

/// A `register_` token: the backend's permission to register a passkey for
/// one user, with the options it chose (passwordless-api.md §3 "Register token claims").
/// Valid until it expires; it may start more than one registration, as the
/// hosted API's may.
struct RegisterTokenClaims: PasswordlessTokenClaims {
    var tokenId: String
    var expiresAt: Date
    var userId: String
    var username: String
    var displayName: String
    var attestation: AttestationConveyancePreference
    /// `any`, `platform` or `cross-platform`.
    var authenticatorType: String
    var discoverable: Bool
    var userVerification: UserVerificationRequirement
    var aliases: [String]
    var aliasHashing: Bool
    var hints: [PublicKeyCredentialHint]
}

/// A `session_` token from `/register/begin`: the ceremony state
/// `/register/complete` verifies against. Single-use and short-lived.
struct RegistrationSession: PasswordlessTokenClaims {
    var ceremony = SessionCeremony.registration
    var tokenId: String
    var expiresAt: Date
    var rpId: String
    var challenge: Base64URLBytes
    var userId: String
    var userVerification: UserVerificationRequirement
    /// The `pubKeyCredParams` algorithms offered.
    var algorithms: [Int]
    var aliases: [String]
    var aliasHashing: Bool
}

/// A `session_` token from `/signin/begin`. Single-use and short-lived.
struct SignInSession: PasswordlessTokenClaims {
    var ceremony = SessionCeremony.signIn
    var tokenId: String
    var expiresAt: Date
    var rpId: String
    var challenge: Base64URLBytes
    var allowCredentials: [Base64URLBytes]
    var userVerification: UserVerificationRequirement
    var purpose: String
    /// The user named by `userId` or a known alias at begin; the credential
    /// that signs in must be theirs. nil for a discoverable sign-in.
    var expectedUserId: String?
}

/// A `verify_` token: the outcome a backend redeems at `/signin/verify`, once.
package struct VerifyTokenClaims: PasswordlessTokenClaims {
    package var tokenId: String
    package var expiresAt: Date
    /// `passkey_register`, `passkey_signin` or `generated_signin`.
    var type: String
    package var userId: String
    var timestamp: Date
    var rpId: String?
    var origin: String?
    var device: String?
    var country: String?
    var nickname: String?
    var credentialId: Base64URLBytes?
    var purpose: String?
}

/// Which ceremony a `session_` token belongs to, so a sign-in session posted
/// to `/register/complete` gets a clear answer instead of "unreadable".
enum SessionCeremony: String, Codable, Sendable {
    case registration
    case signIn = "signin"

    struct Probe: Decodable {
        var ceremony: SessionCeremony
    }
}

enum TokenID {
    /// A fresh token id in GUID form, as the hosted API writes `tokenId`.
    static func make() -> String { UUID().uuidString.lowercased() }
}
