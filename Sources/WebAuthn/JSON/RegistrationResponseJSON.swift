/// §5.1.8 RegistrationResponseJSON: a new credential as a client returns it
/// from `navigator.credentials.create()`, ready to post to a relying party.
public struct RegistrationResponseJSON: Sendable, Equatable, Codable {
    /// The credential id, base64url; must equal `rawId`.
    public var id: String
    public var rawId: Base64URLBytes
    /// Always `public-key`; kept as text so a wrong value is a verification
    /// failure that names it, not an unreadable payload.
    public var type: String
    public var response: AuthenticatorAttestationResponseJSON
    public var authenticatorAttachment: AuthenticatorAttachment?
    public var clientExtensionResults: AuthenticationExtensionsClientOutputsJSON

    public init(rawId: [UInt8], response: AuthenticatorAttestationResponseJSON,
                authenticatorAttachment: AuthenticatorAttachment? = nil,
                clientExtensionResults: AuthenticationExtensionsClientOutputsJSON = .init(),
                type: String = "public-key") {
        self.id = Base64URL.encode(rawId)
        self.rawId = Base64URLBytes(rawId)
        self.type = type
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
    }

    private enum CodingKeys: String, CodingKey {
        case id, rawId, type, response, authenticatorAttachment, clientExtensionResults
        /// fido2-net-lib's obsolete name for `clientExtensionResults`, still sent by
        /// the passwordless.dev iOS SDK.
        case extensions
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        rawId = try container.decode(Base64URLBytes.self, forKey: .rawId)
        type = try container.decode(String.self, forKey: .type)
        response = try container.decode(AuthenticatorAttestationResponseJSON.self, forKey: .response)
        authenticatorAttachment = try container.decodeKnownValue(AuthenticatorAttachment.self, forKey: .authenticatorAttachment)
        clientExtensionResults = try container.decodeIfPresent(
            AuthenticationExtensionsClientOutputsJSON.self, forKey: .clientExtensionResults)
            ?? container.decodeIfPresent(AuthenticationExtensionsClientOutputsJSON.self, forKey: .extensions)
            ?? .init()
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(rawId, forKey: .rawId)
        try container.encode(type, forKey: .type)
        try container.encode(response, forKey: .response)
        try container.encodeIfPresent(authenticatorAttachment, forKey: .authenticatorAttachment)
        try container.encode(clientExtensionResults, forKey: .clientExtensionResults)
    }
}

/// §5.2.1.1 AuthenticatorAttestationResponseJSON.
///
/// L3 makes `authenticatorData`, `transports` and `publicKeyAlgorithm`
/// required, but clients written before L3 (the passwordless.dev iOS SDK
/// among them) omit them: they decode as nil / empty, and the attestation
/// object stays the authority.
public struct AuthenticatorAttestationResponseJSON: Sendable, Equatable, Codable {
    public var clientDataJSON: Base64URLBytes
    public var authenticatorData: Base64URLBytes?
    public var transports: [AuthenticatorTransport]
    /// The credential public key as DER SubjectPublicKeyInfo, when the client could express it.
    public var publicKey: Base64URLBytes?
    public var publicKeyAlgorithm: Int?
    public var attestationObject: Base64URLBytes

    public init(clientDataJSON: [UInt8], attestationObject: [UInt8], authenticatorData: [UInt8]? = nil,
                transports: [AuthenticatorTransport] = [], publicKey: [UInt8]? = nil, publicKeyAlgorithm: Int? = nil) {
        self.clientDataJSON = Base64URLBytes(clientDataJSON)
        self.authenticatorData = authenticatorData.map(Base64URLBytes.init)
        self.transports = transports
        self.publicKey = publicKey.map(Base64URLBytes.init)
        self.publicKeyAlgorithm = publicKeyAlgorithm
        self.attestationObject = Base64URLBytes(attestationObject)
    }

    private enum CodingKeys: String, CodingKey {
        case clientDataJSON, authenticatorData, transports, publicKey, publicKeyAlgorithm, attestationObject
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientDataJSON = try container.decode(Base64URLBytes.self, forKey: .clientDataJSON)
        authenticatorData = try container.decodeIfPresent(Base64URLBytes.self, forKey: .authenticatorData)
        transports = try container.decodeIfPresent([AuthenticatorTransport].self, forKey: .transports) ?? []
        publicKey = try container.decodeIfPresent(Base64URLBytes.self, forKey: .publicKey)
        publicKeyAlgorithm = try container.decodeIfPresent(Int.self, forKey: .publicKeyAlgorithm)
        attestationObject = try container.decode(Base64URLBytes.self, forKey: .attestationObject)
    }
}
