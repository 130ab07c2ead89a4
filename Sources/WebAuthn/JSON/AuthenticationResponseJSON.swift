/// §5.1.9 AuthenticationResponseJSON: an assertion as a client returns it
/// from `navigator.credentials.get()`, ready to post to a relying party.
public struct AuthenticationResponseJSON: Sendable, Equatable, Codable {
    /// The credential id, base64url; must equal `rawId`.
    public var id: String
    public var rawId: Base64URLBytes
    public var type: String
    public var response: AuthenticatorAssertionResponseJSON
    public var authenticatorAttachment: AuthenticatorAttachment?
    public var clientExtensionResults: AuthenticationExtensionsClientOutputsJSON

    public init(rawId: [UInt8], response: AuthenticatorAssertionResponseJSON,
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
        /// fido2-net-lib's obsolete name for `clientExtensionResults`.
        case extensions
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        rawId = try container.decode(Base64URLBytes.self, forKey: .rawId)
        type = try container.decode(String.self, forKey: .type)
        response = try container.decode(AuthenticatorAssertionResponseJSON.self, forKey: .response)
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

/// §5.2.2.1 AuthenticatorAssertionResponseJSON. `userHandle` is present when
/// the credential is discoverable (the authenticator returns the user id).
public struct AuthenticatorAssertionResponseJSON: Sendable, Equatable, Codable {
    public var clientDataJSON: Base64URLBytes
    public var authenticatorData: Base64URLBytes
    public var signature: Base64URLBytes
    public var userHandle: Base64URLBytes?

    public init(clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]? = nil) {
        self.clientDataJSON = Base64URLBytes(clientDataJSON)
        self.authenticatorData = Base64URLBytes(authenticatorData)
        self.signature = Base64URLBytes(signature)
        self.userHandle = userHandle.map(Base64URLBytes.init)
    }
}
