/// Why a PC/SC operation failed, as something the user can act on.
///
/// Every pcsc-lite return code a caller can meet is mapped to one of these;
/// the rest keep their code and pcsc-lite's text in `.pcsc`.
public enum SmartCardError: Error, Sendable, Equatable, CustomStringConvertible {
    /// pcscd does not answer on its socket (not started, stopped, or restarted under us).
    case serviceNotRunning
    /// pcscd runs but has no reader.
    case noReaders
    /// No reader has this name.
    case readerNotFound(String)
    /// The reader has no card in it.
    case noCard(reader: String)
    /// The card left the reader (or stopped answering) during an operation.
    case cardRemoved(reader: String)
    /// Another program reset the card; anything verified on it (PIN, keys) was lost.
    case cardReset(reader: String)
    /// Another program holds the card exclusively.
    case sharingViolation(reader: String)
    /// The card does not answer (bad contact, or a virtual card that is not running).
    case cardUnresponsive(reader: String)
    /// A wait for a card or reader event ran out of time.
    case timedOut
    /// A wait was cancelled (SCardCancel).
    case cancelled
    /// The connection was closed (disconnect was called, or pcscd restarted).
    case connectionClosed
    /// The card's answer is not a valid response APDU, or breaks the chaining rules.
    case malformedResponse(String)
    /// A command could not be encoded (too long for the transport).
    case invalidCommand(String)
    /// Any other pcsc-lite failure: the function, its code and pcsc-lite's text.
    case pcsc(function: String, code: Int, text: String)

    public var description: String {
        switch self {
        case .serviceNotRunning:
            return "pcscd is not running: start it with `sudo systemctl start pcscd.socket` (or run `pcscd`)"
        case .noReaders:
            return "no smart card reader is connected"
        case .readerNotFound(let name):
            return "no smart card reader named \"\(name)\" (see `passkey card list`)"
        case .noCard(let reader):
            return "no card in reader \"\(reader)\": insert the card and try again"
        case .cardRemoved(let reader):
            return "the card in \"\(reader)\" was removed during the operation: insert it and try again"
        case .cardReset(let reader):
            return "another program reset the card in \"\(reader)\" (its PIN verification was lost): try again"
        case .sharingViolation(let reader):
            return "another program holds the card in \"\(reader)\" exclusively "
                + "(often scdaemon from GnuPG — stop it with `gpgconf --kill scdaemon` — or yubikey-agent): close it and try again"
        case .cardUnresponsive(let reader):
            return "the card in \"\(reader)\" does not respond: reinsert it and try again"
        case .timedOut:
            return "timed out waiting for the card"
        case .cancelled:
            return "waiting for the card was cancelled"
        case .connectionClosed:
            return "the connection to the card is closed (pcscd may have restarted): try again"
        case .malformedResponse(let why):
            return "the card sent a malformed response: \(why)"
        case .invalidCommand(let why):
            return "cannot send the command to the card: \(why)"
        case .pcsc(let function, let code, let text):
            return "\(function) failed: \(text) (\(PCSCReturnCode(rawValue: code).hex))"
        }
    }

    /// Maps a failed pcsc-lite call to the error the user should see.
    static func from(_ code: PCSCReturnCode, function: String, reader: String? = nil) -> SmartCardError {
        let name = reader ?? "the reader"
        switch code {
        case .noService, .serviceStopped, .communicationError:
            return .serviceNotRunning
        case .noReadersAvailable:
            return .noReaders
        case .unknownReader, .readerUnavailable:
            return reader.map { .readerNotFound($0) } ?? .noReaders
        case .noSmartcard:
            // At connect time "no card"; afterwards the card went away.
            return function == "SCardConnect" ? .noCard(reader: name) : .cardRemoved(reader: name)
        case .removedCard:
            return .cardRemoved(reader: name)
        case .resetCard:
            return .cardReset(reader: name)
        case .sharingViolation:
            return .sharingViolation(reader: name)
        case .unresponsiveCard, .unpoweredCard, .notReady:
            return .cardUnresponsive(reader: name)
        case .timeout:
            return .timedOut
        case .cancelled:
            return .cancelled
        case .invalidHandle:
            return .connectionClosed
        default:
            return .pcsc(function: function, code: code.rawValue, text: code.text)
        }
    }
}
