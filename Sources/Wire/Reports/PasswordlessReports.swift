/// What a passwordless.dev ceremony reports, in the one form the Passwordless
/// library returns and the `passkey.register`/`passkey.signin` methods answer with.

/// `passkey.register`'s result: the verify token and what was registered.
public struct PasskeyRegistration: Sendable, Codable, Equatable {
    /// The `verify_…` token for `/signin/verify`.
    public var token: String
    public var credentialId: String
    public var rpId: String
    public var origin: String
    public var nickname: String?
    /// Stored on the key as a discoverable credential (credProps.rk).
    public var residentKey: Bool?
    public var transports: [String]
    public var authenticatorAttachment: String?

    public init(token: String, credentialId: String, rpId: String, origin: String, nickname: String?,
                residentKey: Bool?, transports: [String], authenticatorAttachment: String?) {
        self.token = token
        self.credentialId = credentialId
        self.rpId = rpId
        self.origin = origin
        self.nickname = nickname
        self.residentKey = residentKey
        self.transports = transports
        self.authenticatorAttachment = authenticatorAttachment
    }
}

/// `passkey.signin`'s result: the verify token and the credential used.
public struct PasskeySignIn: Sendable, Codable, Equatable {
    /// The `verify_…` token for `/signin/verify`.
    public var token: String
    public var credentialId: String
    /// The user handle (base64url) the key returned, for discoverable credentials.
    public var userHandle: String?
    public var rpId: String
    public var origin: String
    /// The user signed in as: the user handle as text (passwordless.dev's
    /// user id), when the key returned one that is printable UTF-8.
    public var userId: String?
    /// How many credentials the server named for the alias or user id asked
    /// for. 0 means it knows none: the key signed in with a passkey of its
    /// own choosing, whose user need not be the one asked for.
    public var offeredCredentials: Int?

    public init(token: String, credentialId: String, userHandle: String?, rpId: String, origin: String,
                userId: String? = nil, offeredCredentials: Int? = nil) {
        self.token = token
        self.credentialId = credentialId
        self.userHandle = userHandle
        self.rpId = rpId
        self.origin = origin
        self.userId = userId
        self.offeredCredentials = offeredCredentials
    }
}
