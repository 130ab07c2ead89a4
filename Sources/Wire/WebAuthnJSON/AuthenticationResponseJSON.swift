/// §5.1.9 AuthenticationResponseJSON: an assertion as a client returns it
/// from `navigator.credentials.get()`, ready to post to a relying party.
public typealias AuthenticationResponseJSON = PublicKeyCredentialJSON<AuthenticatorAssertionResponseJSON>

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
