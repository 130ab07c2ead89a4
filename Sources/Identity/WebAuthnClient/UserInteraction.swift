import FIDO

/// How a ceremony reaches the person at the keyboard while it runs.
///
/// The CLI answers on its terminal (or pinentry); the agent forwards each
/// question to its socket client as a notification and waits for the answer.
/// Either may throw to stop the ceremony (e.g. the user cancelled).
public protocol UserInteraction: Sendable {
    /// What the authenticator is doing: a chance to say "Touch your security key…".
    func progress(_ stage: FIDOProgress)
    /// Asks for a PIN. Called again after a wrong PIN, with the tries left;
    /// never answered from a cache.
    func pin(_ request: PINRequest) async throws -> String
    /// Several accounts on the key match: which one (an index into `accounts`)?
    func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int
}

/// A request for a PIN, with what the user needs to decide.
public struct PINRequest: Sendable, Codable, Equatable {
    /// What the secret is, for the prompt ("security key PIN", "card PIN").
    public var what: String
    /// One sentence on why it is needed now.
    public var reason: String
    /// Tries left after an earlier wrong PIN, when known.
    public var triesLeft: Int?

    public init(what: String, reason: String, triesLeft: Int? = nil) {
        self.what = what
        self.reason = reason
        self.triesLeft = triesLeft
    }
}

/// One account a discoverable sign-in could use. Never holds a secret.
public struct AccountChoice: Sendable, Codable, Equatable {
    public var name: String?
    public var displayName: String?
    /// The user handle, base64url.
    public var userHandle: String?

    public init(name: String?, displayName: String?, userHandle: String?) {
        self.name = name
        self.displayName = displayName
        self.userHandle = userHandle
    }

    /// How the account reads in a list.
    public var label: String {
        switch (name, displayName) {
        case let (name?, display?) where display != name: return "\(display) <\(name)>"
        case let (name?, _): return name
        case let (nil, display?): return display
        default: return userHandle.map { "user handle \($0)" } ?? "unnamed account"
        }
    }
}
