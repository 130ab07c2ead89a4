/// §5.7.1 AuthenticationExtensionsClientInputsJSON: the extension inputs a
/// relying party may put in creation or request options. Members this library
/// does not know are ignored when decoding, as clients must ignore them.
public struct AuthenticationExtensionsClientInputsJSON: Sendable, Equatable, Codable {
    /// §10.1.1 FIDO AppID (request options only).
    public var appid: String?
    /// §10.1.2 FIDO AppID exclusion (creation options only).
    public var appidExclude: String?
    /// §10.1.3 credential properties: ask the client to report `rk`.
    public var credProps: Bool?
    /// CTAP 2.1 §12.1 credProtect, as WebAuthn names it.
    public var credentialProtectionPolicy: CredentialProtectionPolicy?
    public var enforceCredentialProtectionPolicy: Bool?
    /// CTAP 2.1 §12.5 hmac-secret at creation.
    public var hmacCreateSecret: Bool?
    /// CTAP 2.1 §12.5 hmac-secret at assertion: one or two 32-byte salts.
    public var hmacGetSecret: HMACGetSecretInputJSON?
    /// §10.1.4 pseudo-random function.
    public var prf: PRFInputsJSON?
    /// CTAP 2.1 §12.4 minPinLength.
    public var minPinLength: Bool?

    public init(appid: String? = nil, appidExclude: String? = nil, credProps: Bool? = nil,
                credentialProtectionPolicy: CredentialProtectionPolicy? = nil,
                enforceCredentialProtectionPolicy: Bool? = nil, hmacCreateSecret: Bool? = nil,
                hmacGetSecret: HMACGetSecretInputJSON? = nil, prf: PRFInputsJSON? = nil,
                minPinLength: Bool? = nil) {
        self.appid = appid
        self.appidExclude = appidExclude
        self.credProps = credProps
        self.credentialProtectionPolicy = credentialProtectionPolicy
        self.enforceCredentialProtectionPolicy = enforceCredentialProtectionPolicy
        self.hmacCreateSecret = hmacCreateSecret
        self.hmacGetSecret = hmacGetSecret
        self.prf = prf
        self.minPinLength = minPinLength
    }

    private enum CodingKeys: String, CodingKey {
        case appid, appidExclude, credProps, credentialProtectionPolicy, enforceCredentialProtectionPolicy
        case hmacCreateSecret, hmacGetSecret, prf, minPinLength
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        appid = try container.decodeIfPresent(String.self, forKey: .appid)
        appidExclude = try container.decodeIfPresent(String.self, forKey: .appidExclude)
        credProps = try container.decodeIfPresent(Bool.self, forKey: .credProps)
        credentialProtectionPolicy = try container.decodeKnownValue(
            CredentialProtectionPolicy.self, forKey: .credentialProtectionPolicy)
        enforceCredentialProtectionPolicy = try container.decodeIfPresent(Bool.self, forKey: .enforceCredentialProtectionPolicy)
        hmacCreateSecret = try container.decodeIfPresent(Bool.self, forKey: .hmacCreateSecret)
        hmacGetSecret = try container.decodeIfPresent(HMACGetSecretInputJSON.self, forKey: .hmacGetSecret)
        prf = try container.decodeIfPresent(PRFInputsJSON.self, forKey: .prf)
        minPinLength = try container.decodeIfPresent(Bool.self, forKey: .minPinLength)
    }
}

/// The hmac-secret salts (CTAP 2.1 §12.5 `hmacGetSecret`).
public struct HMACGetSecretInputJSON: Sendable, Equatable, Codable {
    public var salt1: Base64URLBytes
    public var salt2: Base64URLBytes?

    public init(salt1: Base64URLBytes, salt2: Base64URLBytes? = nil) {
        self.salt1 = salt1
        self.salt2 = salt2
    }
}

/// §10.1.4 AuthenticationExtensionsPRFValues in JSON form.
public struct PRFValuesJSON: Sendable, Equatable, Codable {
    public var first: Base64URLBytes
    public var second: Base64URLBytes?

    public init(first: Base64URLBytes, second: Base64URLBytes? = nil) {
        self.first = first
        self.second = second
    }
}

/// §10.1.4 AuthenticationExtensionsPRFInputs in JSON form.
public struct PRFInputsJSON: Sendable, Equatable, Codable {
    public var eval: PRFValuesJSON?
    /// Keyed by base64url credential id (request options only).
    public var evalByCredential: [String: PRFValuesJSON]?

    public init(eval: PRFValuesJSON? = nil, evalByCredential: [String: PRFValuesJSON]? = nil) {
        self.eval = eval
        self.evalByCredential = evalByCredential
    }
}
