import Base64
/// §5.1.8 RegistrationResponseJSON and §5.1.9 AuthenticationResponseJSON: a
/// credential as a client returns it from `navigator.credentials.create()` or
/// `.get()`, ready to post to a relying party. The two have the same members
/// and differ only in `response`, so this one type is both (see the aliases
/// beside each response type).
public struct PublicKeyCredentialJSON<Response: Sendable & Equatable & Codable>: Sendable, Equatable, Codable {
    /// The credential id, base64url; must equal `rawId`.
    public var id: String
    public var rawId: Base64URLBytes
    /// Always `public-key`; kept as text so a wrong value is a verification
    /// failure that names it, not an unreadable payload.
    public var type: String
    public var response: Response
    public var authenticatorAttachment: AuthenticatorAttachment?
    public var clientExtensionResults: AuthenticationExtensionsClientOutputsJSON

    public init(rawId: [UInt8], response: Response,
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
        response = try container.decode(Response.self, forKey: .response)
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
