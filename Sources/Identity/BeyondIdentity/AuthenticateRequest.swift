import WebAuthnJSON

/// A request JWT that `RequestVerifier` verified: what the sign-in is for
/// (shown to the person before they touch the key, as a phishing check), and
/// what the proof needs. `challenge` is the prove nonce: a secret of this
/// transaction, never shown.
public struct AuthenticateRequest: Sendable, Equatable {
    /// The application's display name (`app.display_name`), control characters removed.
    public var applicationName: String?
    public var applicationId: String
    /// Where the sign-in started, as the identity provider saw it.
    public var requestOrigin: RequestOrigin
    /// `authn.base_url`: the identity provider's API root.
    public var baseURL: String
    public var tenantId: String
    public var realmId: String
    public var transactionId: String
    public var jti: String
    /// The WebAuthn challenge (base64url), `authn.action.prove.nonce`.
    public var challenge: String
    public var rpId: String
    /// The WebAuthn origin the assertion is made for (`https://<rp id>`).
    public var origin: String
    /// Base64url credential ids of the realm's passkeys; empty: discoverable.
    public var allowCredentials: [String]
    /// `authn.redirect_uri` and `authn.state`: where the proof's redirect must go.
    public var redirectURI: String
    public var state: String
    /// `exp`, within ±`OutsideSeconds.latest`.
    public var expiresAt: Int64

    public init(applicationName: String?, applicationId: String, requestOrigin: RequestOrigin, baseURL: String,
                tenantId: String, realmId: String, transactionId: String, jti: String, challenge: String, rpId: String,
                origin: String, allowCredentials: [String], redirectURI: String, state: String, expiresAt: Int64) {
        self.applicationName = applicationName
        self.applicationId = applicationId
        self.requestOrigin = requestOrigin
        self.baseURL = baseURL
        self.tenantId = tenantId
        self.realmId = realmId
        self.transactionId = transactionId
        self.jti = jti
        self.challenge = challenge
        self.rpId = rpId
        self.origin = origin
        self.allowCredentials = allowCredentials
        self.redirectURI = redirectURI
        self.state = state
        self.expiresAt = expiresAt
    }

    /// The assertion options for WebAuthnClient's GetCredential: the
    /// challenge, the RP ID, the realm's credentials, user verification preferred.
    public var assertionOptions: PublicKeyCredentialRequestOptionsJSON {
        PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URLBytes(base64URL: challenge) ?? Base64URLBytes([]),
            rpId: rpId,
            allowCredentials: allowCredentials.compactMap { Base64URLBytes(base64URL: $0) }
                .map { PublicKeyCredentialDescriptorJSON(id: $0) },
            userVerification: .preferred)
    }
}

/// `origin` of the request JWT: the browser that asked to sign in. Outside
/// text: control characters are removed and each field is at most 200 characters.
public struct RequestOrigin: Sendable, Equatable {
    public var ip: String
    public var userAgent: String
    public var geolocation: String
    public var referer: String

    public init(ip: String, userAgent: String, geolocation: String = "", referer: String = "") {
        self.ip = ip
        self.userAgent = userAgent
        self.geolocation = geolocation
        self.referer = referer
    }
}
