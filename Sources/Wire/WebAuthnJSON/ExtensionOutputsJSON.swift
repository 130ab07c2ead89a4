/// §5.7.2 AuthenticationExtensionsClientOutputsJSON: what a client reports
/// back in `clientExtensionResults`. Unknown members are ignored.
public struct AuthenticationExtensionsClientOutputsJSON: Sendable, Equatable, Codable {
    /// §10.1.1 whether the AppID was used.
    public var appid: Bool?
    /// §10.1.3 credential properties.
    public var credProps: CredentialPropertiesOutputJSON?
    public var hmacCreateSecret: Bool?
    public var hmacGetSecret: HMACGetSecretOutputJSON?
    public var prf: PRFOutputsJSON?

    public init(appid: Bool? = nil, credProps: CredentialPropertiesOutputJSON? = nil,
                hmacCreateSecret: Bool? = nil, hmacGetSecret: HMACGetSecretOutputJSON? = nil,
                prf: PRFOutputsJSON? = nil) {
        self.appid = appid
        self.credProps = credProps
        self.hmacCreateSecret = hmacCreateSecret
        self.hmacGetSecret = hmacGetSecret
        self.prf = prf
    }
}

/// §10.1.3 CredentialPropertiesOutput: `rk` says whether the credential is discoverable.
public struct CredentialPropertiesOutputJSON: Sendable, Equatable, Codable {
    public var rk: Bool?

    public init(rk: Bool?) { self.rk = rk }
}

public struct HMACGetSecretOutputJSON: Sendable, Equatable, Codable {
    public var output1: Base64URLBytes
    public var output2: Base64URLBytes?

    public init(output1: Base64URLBytes, output2: Base64URLBytes? = nil) {
        self.output1 = output1
        self.output2 = output2
    }
}

/// §10.1.4 AuthenticationExtensionsPRFOutputs in JSON form.
public struct PRFOutputsJSON: Sendable, Equatable, Codable {
    public var enabled: Bool?
    public var results: PRFValuesJSON?

    public init(enabled: Bool? = nil, results: PRFValuesJSON? = nil) {
        self.enabled = enabled
        self.results = results
    }
}
