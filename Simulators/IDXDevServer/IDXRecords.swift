import FoundationEssentials
import WebAuthn

/// A user of the IDX subset: Okta-shaped ids (`00u…`), an optional password
/// (kept as its SHA-256: compared, never shown) and the security keys
/// enrolled through IDX.
struct IDXUser: Sendable {
    /// At most this many security keys per user.
    static let maxEnrollments = 16

    let id: String
    let username: String
    let passwordHash: [UInt8]?
    /// The password authenticator's enrollment id (`lae…`), when there is a password.
    let passwordEnrollmentId: String?
    var enrollments: [IDXWebAuthnEnrollment] = []
}

/// A security key enrolled through `enroll-authenticator`.
struct IDXWebAuthnEnrollment: Sendable {
    /// The enrollment's id (`fwf…`), as `authenticatorEnrollments` shows it.
    let id: String
    let credentialId: [UInt8]
    let publicKey: COSEKey
    var signCount: UInt32
    let aaguid: [UInt8]
    let backupEligible: Bool
}

/// What `/v1/interact` was asked for: the OAuth side of the transaction,
/// completed by the interaction code.
struct IDXInteraction: Sendable {
    let clientId: String
    let redirectURI: String
    let scopes: [String]
    let state: String
    let nonce: String?
    let codeChallenge: String
}

/// Where a transaction stands: which remediations it offers next.
enum IDXRemediationStep: Sendable, Equatable {
    /// `identify` (and `cancel`).
    case identify
    /// `challenge-authenticator` for the password; then enroll a key
    /// (`thenEnroll`) or sign in.
    case password(userId: String, thenEnroll: Bool)
    /// `select-authenticator-authenticate`: the security key, or the password.
    case selectAuthenticate(userId: String)
    /// `challenge-authenticator` for the security key, with a single-use challenge.
    case webauthnChallenge(userId: String, challenge: [UInt8])
    /// `select-authenticator-enroll`: the security key.
    case selectEnroll(userId: String)
    /// `enroll-authenticator` for the security key, with a single-use challenge.
    case webauthnEnroll(userId: String, challenge: [UInt8])
    /// `successWithInteractionCode`.
    case success(userId: String, interactionCode: String)

    var userId: String? {
        switch self {
        case .identify: return nil
        case .password(let id, _), .selectAuthenticate(let id), .webauthnChallenge(let id, _), .selectEnroll(let id),
             .webauthnEnroll(let id, _), .success(let id, _):
            return id
        }
    }
}

/// One IDX transaction: an interaction and its current stateHandle. The
/// stateHandle is kept as issued, since every answer repeats it; it is
/// looked up by its SHA-256.
struct IDXTransactionRecord: Sendable {
    let interaction: IDXInteraction
    var stateHandle: String
    var expiresAt: Date
    var step: IDXRemediationStep = .identify
}
