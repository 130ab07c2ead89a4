// The dictionaries that creation and request options are made of
// (WebAuthn L3 §5.4.1–§5.4.4, §5.8.3), in their JSON forms.

/// §5.4.2 PublicKeyCredentialRpEntity. `id` may be omitted: the client then
/// uses the origin's effective domain.
public struct PublicKeyCredentialRpEntity: Sendable, Equatable, Codable {
    public var id: String?
    public var name: String

    public init(id: String?, name: String) {
        self.id = id
        self.name = name
    }
}

/// §5.4.3 PublicKeyCredentialUserEntityJSON: `id` is the user handle, at most 64 bytes.
public struct PublicKeyCredentialUserEntityJSON: Sendable, Equatable, Codable {
    public var id: Base64URLBytes
    public var name: String
    public var displayName: String

    public init(id: Base64URLBytes, name: String, displayName: String) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }
}

/// §5.3 PublicKeyCredentialParameters. `alg` stays an integer: relying
/// parties list algorithms (ES384, PS512, …) a client may not implement, and
/// those must not make the options unreadable.
public struct PublicKeyCredentialParameters: Sendable, Equatable, Codable {
    public var type: String
    public var alg: Int

    public init(type: String = "public-key", alg: Int) {
        self.type = type
        self.alg = alg
    }

    public init(_ algorithm: COSEAlgorithm) {
        self.init(alg: algorithm.rawValue)
    }

    /// The algorithm, when this library knows it.
    public var algorithm: COSEAlgorithm? { COSEAlgorithm(rawValue: alg) }
}

/// §5.8.3 PublicKeyCredentialDescriptorJSON, used in `excludeCredentials` and `allowCredentials`.
public struct PublicKeyCredentialDescriptorJSON: Sendable, Equatable, Codable {
    public var type: String
    public var id: Base64URLBytes
    public var transports: [AuthenticatorTransport]?

    public init(type: String = "public-key", id: Base64URLBytes, transports: [AuthenticatorTransport]? = nil) {
        self.type = type
        self.id = id
        self.transports = transports
    }
}

/// §5.4.4 AuthenticatorSelectionCriteria. Unknown enumeration values decode as nil.
public struct AuthenticatorSelectionCriteria: Sendable, Equatable, Codable {
    public var authenticatorAttachment: AuthenticatorAttachment?
    public var residentKey: ResidentKeyRequirement?
    /// Deprecated by `residentKey`, still sent by fido2-net-lib and py_webauthn.
    public var requireResidentKey: Bool?
    public var userVerification: UserVerificationRequirement?

    public init(authenticatorAttachment: AuthenticatorAttachment? = nil,
                residentKey: ResidentKeyRequirement? = nil,
                requireResidentKey: Bool? = nil,
                userVerification: UserVerificationRequirement? = nil) {
        self.authenticatorAttachment = authenticatorAttachment
        self.residentKey = residentKey
        self.requireResidentKey = requireResidentKey
        self.userVerification = userVerification
    }

    /// The requirement a client acts on (§5.4.4): `residentKey` when known,
    /// else `required` if `requireResidentKey` is true, else `discouraged`.
    public var effectiveResidentKey: ResidentKeyRequirement {
        residentKey ?? (requireResidentKey == true ? .required : .discouraged)
    }

    private enum CodingKeys: String, CodingKey {
        case authenticatorAttachment, residentKey, requireResidentKey, userVerification
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        authenticatorAttachment = try container.decodeKnownValue(AuthenticatorAttachment.self, forKey: .authenticatorAttachment)
        residentKey = try container.decodeKnownValue(ResidentKeyRequirement.self, forKey: .residentKey)
        requireResidentKey = try container.decodeIfPresent(Bool.self, forKey: .requireResidentKey)
        userVerification = try container.decodeKnownValue(UserVerificationRequirement.self, forKey: .userVerification)
    }
}
