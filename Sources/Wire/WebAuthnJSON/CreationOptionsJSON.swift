/// §5.1.10 PublicKeyCredentialCreationOptionsJSON: what a relying party sends
/// to start a registration.
///
/// Decodes the output of real relying-party libraries (fido2-net-lib, py_webauthn,
/// SimpleWebAuthn): absent lists become empty, unknown enumeration values are
/// ignored, unknown members (fido2-net-lib's `status`/`errorMessage`, `rp.icon`)
/// are skipped. Encoding writes every list, even when empty, as fido2-net-lib does.
public struct PublicKeyCredentialCreationOptionsJSON: Sendable, Equatable, Codable {
    public var rp: PublicKeyCredentialRpEntity
    public var user: PublicKeyCredentialUserEntityJSON
    public var challenge: Base64URLBytes
    /// In order of preference.
    public var pubKeyCredParams: [PublicKeyCredentialParameters]
    /// Milliseconds.
    public var timeout: UInt32?
    public var excludeCredentials: [PublicKeyCredentialDescriptorJSON]
    public var authenticatorSelection: AuthenticatorSelectionCriteria?
    public var hints: [PublicKeyCredentialHint]
    /// nil (absent or unknown) means `none`.
    public var attestation: AttestationConveyancePreference?
    public var attestationFormats: [String]
    public var extensions: AuthenticationExtensionsClientInputsJSON?

    public init(rp: PublicKeyCredentialRpEntity, user: PublicKeyCredentialUserEntityJSON,
                challenge: Base64URLBytes, pubKeyCredParams: [PublicKeyCredentialParameters],
                timeout: UInt32? = nil, excludeCredentials: [PublicKeyCredentialDescriptorJSON] = [],
                authenticatorSelection: AuthenticatorSelectionCriteria? = nil,
                hints: [PublicKeyCredentialHint] = [], attestation: AttestationConveyancePreference? = nil,
                attestationFormats: [String] = [], extensions: AuthenticationExtensionsClientInputsJSON? = nil) {
        self.rp = rp
        self.user = user
        self.challenge = challenge
        self.pubKeyCredParams = pubKeyCredParams
        self.timeout = timeout
        self.excludeCredentials = excludeCredentials
        self.authenticatorSelection = authenticatorSelection
        self.hints = hints
        self.attestation = attestation
        self.attestationFormats = attestationFormats
        self.extensions = extensions
    }

    private enum CodingKeys: String, CodingKey {
        case rp, user, challenge, pubKeyCredParams, timeout, excludeCredentials
        case authenticatorSelection, hints, attestation, attestationFormats, extensions
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rp = try container.decode(PublicKeyCredentialRpEntity.self, forKey: .rp)
        user = try container.decode(PublicKeyCredentialUserEntityJSON.self, forKey: .user)
        challenge = try container.decode(Base64URLBytes.self, forKey: .challenge)
        pubKeyCredParams = try container.decode([PublicKeyCredentialParameters].self, forKey: .pubKeyCredParams)
        timeout = try container.decodeIfPresent(UInt32.self, forKey: .timeout)
        excludeCredentials = try container.decodeIfPresent(
            [PublicKeyCredentialDescriptorJSON].self, forKey: .excludeCredentials) ?? []
        authenticatorSelection = try container.decodeIfPresent(
            AuthenticatorSelectionCriteria.self, forKey: .authenticatorSelection)
        hints = try container.decodeKnownValues(PublicKeyCredentialHint.self, forKey: .hints) ?? []
        attestation = try container.decodeKnownValue(AttestationConveyancePreference.self, forKey: .attestation)
        attestationFormats = try container.decodeIfPresent([String].self, forKey: .attestationFormats) ?? []
        extensions = try container.decodeIfPresent(AuthenticationExtensionsClientInputsJSON.self, forKey: .extensions)
    }

    /// The algorithms a client may choose, in order (`public-key` entries only).
    public var allowedAlgorithms: [Int] {
        pubKeyCredParams.filter { $0.type == "public-key" }.map(\.alg)
    }
}
