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
