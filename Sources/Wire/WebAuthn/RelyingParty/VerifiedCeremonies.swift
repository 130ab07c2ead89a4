import CBOR

/// How an attestation statement vouched for a new credential (WebAuthn L3 §6.5.4).
public enum AttestationType: String, Sendable, Equatable {
    /// Format `none`: no statement.
    case none
    /// `packed` signed by the credential key itself.
    case `self`
    /// `packed` signed by an attestation certificate (x5c). The chain is
    /// checked for form, not against trust anchors: that is the caller's policy.
    case basic
}

/// A registration that passed every check of WebAuthn L3 §7.1: what to store.
public struct VerifiedRegistration: Sendable, Equatable {
    public var credentialId: [UInt8]
    public var publicKey: COSEKey
    public var signCount: UInt32
    /// The authenticator model's AAGUID (16 bytes; all zero under `none`).
    public var aaguid: [UInt8]
    /// The attestation statement format, e.g. `none` or `packed`.
    public var attestationFormat: String
    public var attestationType: AttestationType
    /// The x5c certificates (DER, leaf first) for `basic` attestation; else empty.
    public var attestationCertificates: [[UInt8]]
    public var flags: AuthenticatorData.Flags
    /// As the client reported them, for `excludeCredentials`/`allowCredentials` later.
    public var transports: [AuthenticatorTransport]
    /// The client's `credProps.rk`: whether the credential is discoverable, when reported.
    public var residentKey: Bool?
    public var authenticatorAttachment: AuthenticatorAttachment?
    /// The authenticator extension outputs, when the ED flag was set.
    public var authenticatorExtensions: CBOR?

    public var userVerified: Bool { flags.contains(.userVerified) }
    public var backupEligible: Bool { flags.contains(.backupEligible) }
    public var backupState: Bool { flags.contains(.backupState) }
}

/// An authentication that passed every check of WebAuthn L3 §7.2.
public struct VerifiedAuthentication: Sendable, Equatable {
    public var credentialId: [UInt8]
    /// The new signature counter to store.
    public var signCount: UInt32
    public var flags: AuthenticatorData.Flags
    /// The user handle the authenticator returned, when it did.
    public var userHandle: [UInt8]?
    public var authenticatorAttachment: AuthenticatorAttachment?
    public var authenticatorExtensions: CBOR?

    public var userVerified: Bool { flags.contains(.userVerified) }
    public var backupEligible: Bool { flags.contains(.backupEligible) }
    /// The new backup state to store.
    public var backupState: Bool { flags.contains(.backupState) }
}
