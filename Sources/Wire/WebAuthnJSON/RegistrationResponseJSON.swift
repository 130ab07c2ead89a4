/// §5.1.8 RegistrationResponseJSON: a new credential as a client returns it
/// from `navigator.credentials.create()`, ready to post to a relying party.
public typealias RegistrationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAttestationResponseJSON>

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
