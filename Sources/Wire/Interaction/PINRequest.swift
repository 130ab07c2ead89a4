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
