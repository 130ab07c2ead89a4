import OpenID

/// What `/v1/interact` started: the secrets of one IDX sign-in. They live in
/// the memory of whoever runs the sign-in (the agent), never on disk, and
/// print as nothing (PKCE hides its verifier the same way).
public struct IDXTransaction: Sendable {
    public let pkce: PKCE
    public let state: String
    /// Compared with the ID token's `nonce` at the end.
    public let nonce: String
    public let interactionHandle: String

    public init(pkce: PKCE, state: String, nonce: String, interactionHandle: String) {
        self.pkce = pkce
        self.state = state
        self.nonce = nonce
        self.interactionHandle = interactionHandle
    }
}

extension IDXTransaction: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "IDXTransaction(secrets hidden)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
