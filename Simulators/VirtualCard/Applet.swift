import ISO7816

/// An application on the virtual card, chosen by SELECT with its AID.
///
/// The card does the ISO 7816 plumbing for every applet: it assembles command
/// chains (CLA bit 0x10) before `process` sees them, and splits long
/// responses into 256-byte parts fetched with GET RESPONSE (`61xx`). An
/// applet works with whole commands and whole responses.
public protocol Applet: AnyObject {
    /// A short name for logs, such as "PIV".
    var name: String { get }
    /// The full application identifier. SELECT matches any prefix of at least 5 bytes (the RID).
    var applicationIdentifier: [UInt8] { get }
    /// SELECT chose this applet; returns the SELECT response (FCI or application property template).
    func select() -> ResponseAPDU
    /// Handles one complete command while this applet is selected.
    func process(_ command: CommandAPDU) -> ResponseAPDU
    /// The card was reset or powered off: forget everything volatile (PIN verified, authentications).
    func reset()
}
