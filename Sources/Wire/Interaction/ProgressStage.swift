/// What the authenticator is doing, for "Touch your security key…" prompts.
/// (FIDO derives it from libfido2's exchange; the agent sends it as the
/// `progress` notification's stage.)
public enum ProgressStage: String, Sendable, Codable {
    /// The request is on its way or being processed.
    case processing
    /// The key waits for a touch (or a fingerprint).
    case touch
    /// A key on an NFC (PC/SC) reader waits for presence: tap it on the reader, or keep it there.
    case tap
    /// A PIN exchange with the key is under way.
    case pin
}
