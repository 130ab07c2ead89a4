/// What a relying party expects of a registration (WebAuthn L3 §7.1): the
/// values it put in the creation options and its policy.
public struct RegistrationExpectation: Sendable, Equatable {
    /// The challenge sent in the creation options.
    public var challenge: [UInt8]
    /// Origins the client data may name (exact match, e.g. `https://example.com`).
    public var allowedOrigins: [String]
    /// Top-level origins allowed to embed the ceremony in a cross-origin iframe.
    /// Empty: a cross-origin ceremony is refused.
    public var allowedTopOrigins: [String]
    /// The RP ID whose SHA-256 the authenticator data must carry.
    public var rpId: String
    /// True when the options said `userVerification: "required"`.
    public var userVerificationRequired: Bool
    /// COSE algorithm identifiers from `pubKeyCredParams`.
    public var allowedAlgorithms: [Int]
    /// Attestation statement formats accepted; this verifier implements `none` and `packed`.
    public var allowedAttestationFormats: Set<String>

    public init(challenge: [UInt8], allowedOrigins: [String], rpId: String,
                userVerificationRequired: Bool = false,
                allowedAlgorithms: [Int] = COSEAlgorithm.verifiable.map(\.rawValue),
                allowedTopOrigins: [String] = [],
                allowedAttestationFormats: Set<String> = RelyingParty.supportedAttestationFormats) {
        self.challenge = challenge
        self.allowedOrigins = allowedOrigins
        self.allowedTopOrigins = allowedTopOrigins
        self.rpId = rpId
        self.userVerificationRequired = userVerificationRequired
        self.allowedAlgorithms = allowedAlgorithms
        self.allowedAttestationFormats = allowedAttestationFormats
    }

    /// The expectation the creation options imply: their challenge, algorithms
    /// and UV requirement, and `rp.id` (or `rpId` when the options leave it out).
    public init(options: PublicKeyCredentialCreationOptionsJSON, allowedOrigins: [String],
                rpId: String? = nil, allowedTopOrigins: [String] = []) {
        self.init(challenge: options.challenge.bytes,
                  allowedOrigins: allowedOrigins,
                  rpId: options.rp.id ?? rpId ?? "",
                  userVerificationRequired: options.authenticatorSelection?.userVerification == .required,
                  allowedAlgorithms: options.allowedAlgorithms,
                  allowedTopOrigins: allowedTopOrigins)
    }
}

extension COSEAlgorithm {
    /// The algorithms `COSEKey` can verify signatures for, in the order a
    /// relying party should prefer them.
    public static let verifiable: [COSEAlgorithm] = [.edDSA, .es256, .rs256]
}
