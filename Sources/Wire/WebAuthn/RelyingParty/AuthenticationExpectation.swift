/// What a relying party expects of an authentication (WebAuthn L3 §7.2): the
/// values it put in the request options, and the credential record it found
/// for the response's `rawId`.
public struct AuthenticationExpectation: Sendable, Equatable {
    public var challenge: [UInt8]
    /// Origins the client data may name (exact match).
    public var allowedOrigins: [String]
    /// Top-level origins allowed to embed the ceremony in a cross-origin iframe.
    public var allowedTopOrigins: [String]
    public var rpId: String
    /// True when the options said `userVerification: "required"`.
    public var userVerificationRequired: Bool
    /// The credential ids of `allowCredentials`. Empty means the user was not
    /// identified beforehand (a discoverable sign-in): the response must then
    /// carry a `userHandle` (§7.2 step 3).
    public var allowCredentials: [[UInt8]]
    /// The stored credential the response's `rawId` names.
    public var credential: CredentialRecord

    public init(challenge: [UInt8], allowedOrigins: [String], rpId: String,
                userVerificationRequired: Bool = false, allowCredentials: [[UInt8]] = [],
                credential: CredentialRecord, allowedTopOrigins: [String] = []) {
        self.challenge = challenge
        self.allowedOrigins = allowedOrigins
        self.allowedTopOrigins = allowedTopOrigins
        self.rpId = rpId
        self.userVerificationRequired = userVerificationRequired
        self.allowCredentials = allowCredentials
        self.credential = credential
    }

    /// The expectation the request options imply.
    public init(options: PublicKeyCredentialRequestOptionsJSON, allowedOrigins: [String],
                credential: CredentialRecord, rpId: String? = nil, allowedTopOrigins: [String] = []) {
        self.init(challenge: options.challenge.bytes,
                  allowedOrigins: allowedOrigins,
                  rpId: options.rpId ?? rpId ?? "",
                  userVerificationRequired: options.userVerification == .required,
                  allowCredentials: options.allowCredentials.filter { $0.type == "public-key" }.map(\.id.bytes),
                  credential: credential,
                  allowedTopOrigins: allowedTopOrigins)
    }
}

/// The part of a stored credential record (WebAuthn L3 §4 "credential record")
/// that authentication checks against.
public struct CredentialRecord: Sendable, Equatable {
    public var id: [UInt8]
    public var publicKey: COSEKey
    public var signCount: UInt32
    /// The user handle of the account that owns the credential.
    public var userHandle: [UInt8]
    /// BE as recorded at registration; nil when unknown (then not compared).
    public var backupEligible: Bool?

    public init(id: [UInt8], publicKey: COSEKey, signCount: UInt32, userHandle: [UInt8], backupEligible: Bool? = nil) {
        self.id = id
        self.publicKey = publicKey
        self.signCount = signCount
        self.userHandle = userHandle
        self.backupEligible = backupEligible
    }
}
