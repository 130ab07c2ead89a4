/// Something that carries command APDUs to a card and brings back its
/// responses: a PC/SC connection, or (in tests) a card in the same process.
///
/// Implementations provide the raw exchange; `transmit(_:)` adds command
/// chaining and response chaining on top, once, for all of them.
public protocol CardChannel: AnyObject {
    /// A name for the card's location, used in error messages.
    var readerName: String { get }

    /// Sends one command APDU (encoded) and returns the card's response APDU
    /// bytes, with no chaining logic.
    func transmitRaw(_ command: [UInt8]) throws(SmartCardError) -> [UInt8]

    /// Starts exclusive use of the card for a sequence of commands. Returns
    /// true when the card was reset since the channel last used it (the
    /// application must be selected again and PIN or key authentication is lost).
    func beginTransaction() throws(SmartCardError) -> Bool

    /// Ends the sequence started by `beginTransaction()`.
    func endTransaction()
}

extension CardChannel {
    public func beginTransaction() throws(SmartCardError) -> Bool { false }
    public func endTransaction() {}
}
