/// §5.1.11 PublicKeyCredentialRequestOptionsJSON: what a relying party sends
/// to start an authentication. An empty `allowCredentials` asks for a
/// discoverable credential.
public struct PublicKeyCredentialRequestOptionsJSON: Sendable, Equatable, Codable {
    public var challenge: Base64URLBytes
    /// Milliseconds.
    public var timeout: UInt32?
    public var rpId: String?
    public var allowCredentials: [PublicKeyCredentialDescriptorJSON]
    /// nil (absent or unknown) means `preferred`.
    public var userVerification: UserVerificationRequirement?
    public var hints: [PublicKeyCredentialHint]
    public var extensions: AuthenticationExtensionsClientInputsJSON?

    public init(challenge: Base64URLBytes, timeout: UInt32? = nil, rpId: String? = nil,
                allowCredentials: [PublicKeyCredentialDescriptorJSON] = [],
                userVerification: UserVerificationRequirement? = nil,
                hints: [PublicKeyCredentialHint] = [], extensions: AuthenticationExtensionsClientInputsJSON? = nil) {
        self.challenge = challenge
        self.timeout = timeout
        self.rpId = rpId
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
        self.hints = hints
        self.extensions = extensions
    }

    private enum CodingKeys: String, CodingKey {
        case challenge, timeout, rpId, allowCredentials, userVerification, hints, extensions
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        challenge = try container.decode(Base64URLBytes.self, forKey: .challenge)
        timeout = try container.decodeIfPresent(UInt32.self, forKey: .timeout)
        rpId = try container.decodeIfPresent(String.self, forKey: .rpId)
        allowCredentials = try container.decodeIfPresent(
            [PublicKeyCredentialDescriptorJSON].self, forKey: .allowCredentials) ?? []
        userVerification = try container.decodeKnownValue(UserVerificationRequirement.self, forKey: .userVerification)
        hints = try container.decodeKnownValues(PublicKeyCredentialHint.self, forKey: .hints) ?? []
        extensions = try container.decodeIfPresent(AuthenticationExtensionsClientInputsJSON.self, forKey: .extensions)
    }
}
