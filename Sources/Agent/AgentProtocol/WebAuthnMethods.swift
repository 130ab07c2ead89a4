import WebAuthnJSON

/// `webauthn.create`: a registration ceremony on a security key, as a
/// browser would run it for `origin`.
public enum WebAuthnCreateMethod: AgentMethod {
    public static let name = "webauthn.create"
    public static let answerWait = AnswerWait.person
    public typealias Result = RegistrationResponseJSON

    public struct Params: Codable, Sendable, Equatable {
        public var options: PublicKeyCredentialCreationOptionsJSON
        public var origin: String
        public var device: DeviceChoice?
        /// The key's PIN, when the caller collected it already (`--pin-stdin`).
        public var pin: String?
        /// The client can answer `pin` and `choose` prompts (see docs/PROTOCOL.md).
        public var interactive: Bool?

        public init(options: PublicKeyCredentialCreationOptionsJSON, origin: String, device: DeviceChoice? = nil,
                    pin: String? = nil, interactive: Bool? = nil) {
            self.options = options
            self.origin = origin
            self.device = device
            self.pin = pin
            self.interactive = interactive
        }
    }
}

/// `webauthn.get`: an authentication ceremony on a security key.
public enum WebAuthnGetMethod: AgentMethod {
    public static let name = "webauthn.get"
    public static let answerWait = AnswerWait.person
    public typealias Result = AuthenticationResponseJSON

    public struct Params: Codable, Sendable, Equatable {
        public var options: PublicKeyCredentialRequestOptionsJSON
        public var origin: String
        public var device: DeviceChoice?
        public var pin: String?
        /// Which account, when several discoverable credentials match: user name, display name or user handle.
        public var user: String?
        public var interactive: Bool?

        public init(options: PublicKeyCredentialRequestOptionsJSON, origin: String, device: DeviceChoice? = nil,
                    pin: String? = nil, user: String? = nil, interactive: Bool? = nil) {
            self.options = options
            self.origin = origin
            self.device = device
            self.pin = pin
            self.user = user
            self.interactive = interactive
        }
    }
}
