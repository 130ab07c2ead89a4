/// `credentials.list`: the discoverable credentials (passkeys) stored on a
/// security key, through its credential management. Needs the key's PIN
/// (or its fingerprint, on a key with one).
public enum CredentialsListMethod: AgentMethod {
    public static let name = "credentials.list"
    public static let answerWait = AnswerWait.person
    public typealias Result = CredentialList

    public struct Params: Codable, Sendable, Equatable {
        public var device: DeviceChoice?
        /// Only this relying party's credentials.
        public var rpId: String?
        public var pin: String?
        /// The client can answer `pin` questions (see docs/PROTOCOL.md).
        public var interactive: Bool?

        public init(device: DeviceChoice? = nil, rpId: String? = nil, pin: String? = nil, interactive: Bool? = nil) {
            self.device = device
            self.rpId = rpId
            self.pin = pin
            self.interactive = interactive
        }
    }
}

/// `credentials.delete`: removes one discoverable credential from a key, by
/// its credential id. An id the key does not hold is `not_found`.
public enum CredentialsDeleteMethod: AgentMethod {
    public static let name = "credentials.delete"
    public static let answerWait = AnswerWait.person
    public typealias Result = DeletedCredential

    public struct Params: Codable, Sendable, Equatable {
        public var device: DeviceChoice?
        /// The credential id, base64url (as `credentials.list` shows it).
        public var credentialId: String
        public var pin: String?
        public var interactive: Bool?

        public init(device: DeviceChoice? = nil, credentialId: String, pin: String? = nil, interactive: Bool? = nil) {
            self.device = device
            self.credentialId = credentialId
            self.pin = pin
            self.interactive = interactive
        }
    }
}

/// What `credentials.delete` answers: the id it deleted. The key is not asked
/// whose passkey it was (one more credential management command, one more
/// fingerprint on a biometric key).
public struct DeletedCredential: Codable, Sendable, Equatable {
    public var credentialId: String
    public var deleted: Bool

    public init(credentialId: String, deleted: Bool = true) {
        self.credentialId = credentialId
        self.deleted = deleted
    }
}

public struct CredentialList: Codable, Sendable, Equatable {
    public var credentials: [StoredCredential]
    /// Discoverable credentials on the key, all relying parties together.
    public var existing: Int
    /// How many more the key has room for.
    public var remaining: Int

    public init(credentials: [StoredCredential], existing: Int, remaining: Int) {
        self.credentials = credentials
        self.existing = existing
        self.remaining = remaining
    }
}

/// One discoverable credential on a key. Holds no secret.
public struct StoredCredential: Codable, Sendable, Equatable {
    public var rpId: String
    public var rpName: String?
    /// base64url
    public var credentialId: String
    /// The user handle, base64url.
    public var userHandle: String
    public var userName: String?
    public var userDisplayName: String?
    /// WebAuthn's name for the credProtect level (`userVerificationOptional`,
    /// `userVerificationOptionalWithCredentialIDList`, `userVerificationRequired`),
    /// when the key reports one.
    public var credProtect: String?
    /// The key holds a large-blob key for this credential.
    public var largeBlobKey: Bool

    public init(rpId: String, rpName: String?, credentialId: String, userHandle: String, userName: String?,
                userDisplayName: String?, credProtect: String?, largeBlobKey: Bool) {
        self.rpId = rpId
        self.rpName = rpName
        self.credentialId = credentialId
        self.userHandle = userHandle
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.credProtect = credProtect
        self.largeBlobKey = largeBlobKey
    }
}
