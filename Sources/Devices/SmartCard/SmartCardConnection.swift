import CPCSC
import Locking

/// An open card in a reader (`SCardConnect`, shared mode unless asked otherwise).
///
/// Closing happens on `disconnect()` or when the value is released; both leave
/// the card as it is (no reset), so another program's PIN verification survives.
public final class SmartCardConnection: CardChannel, Sendable {
    public let readerName: String
    /// Keeps the pcscd context alive as long as the connection.
    let context: SmartCardContext
    private let handle: SCARDHANDLE
    private let activeProtocol: DWORD
    private let shareMode: DWORD
    private let closed = Locked(false)
    /// Set when a command found the card reset by someone else; reported by
    /// the next `beginTransaction()` so the caller selects its application again.
    private let resetSeen = Locked(false)

    /// The largest response APDU pcsc-lite can return (extended length + SW).
    private static let receiveBufferSize = 65536 + 2

    init(context: SmartCardContext, reader: String, exclusive: Bool) throws(SmartCardError) {
        self.context = context
        self.readerName = reader
        var card: SCARDHANDLE = 0
        var proto: DWORD = 0
        let share = DWORD(exclusive ? SCARD_SHARE_EXCLUSIVE : SCARD_SHARE_SHARED)
        shareMode = share
        var rc = PCSCReturnCode(SCardConnect(context.handle, reader, share, DWORD(SCARD_PROTOCOL_T1), &card, &proto))
        if rc == .protocolMismatch {
            rc = PCSCReturnCode(SCardConnect(context.handle, reader, share,
                                             DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), &card, &proto))
        }
        guard rc == .success else { throw SmartCardError.from(rc, function: "SCardConnect", reader: reader) }
        handle = card
        activeProtocol = proto
    }

    deinit {
        let wasClosed = closed.withLock { $0 }
        if !wasClosed { _ = SCardDisconnect(handle, DWORD(SCARD_LEAVE_CARD)) }
    }

    /// Closes the connection. `resetCard` also resets the card, which drops
    /// every PIN verification and authentication on it.
    public func disconnect(resetCard: Bool = false) {
        let wasClosed = closed.withLock { value in
            defer { value = true }
            return value
        }
        if !wasClosed {
            _ = SCardDisconnect(handle, DWORD(resetCard ? SCARD_RESET_CARD : SCARD_LEAVE_CARD))
        }
    }

    /// The card's Answer To Reset, as pcscd reports it now.
    public func answerToReset() throws(SmartCardError) -> [UInt8] {
        try ensureOpen()
        var atr = [UInt8](repeating: 0, count: Int(MAX_ATR_SIZE))
        var atrLength = DWORD(atr.count)
        var state: DWORD = 0
        var proto: DWORD = 0
        var nameLength: DWORD = 0
        var rc = PCSCReturnCode(SCardStatus(handle, nil, &nameLength, &state, &proto, &atr, &atrLength))
        if rc == .insufficientBuffer {
            // pcsc-lite wants room for the reader name even when it is not asked for.
            var name = [CChar](repeating: 0, count: Int(nameLength))
            rc = PCSCReturnCode(SCardStatus(handle, &name, &nameLength, &state, &proto, &atr, &atrLength))
        }
        guard rc == .success else { throw SmartCardError.from(rc, function: "SCardStatus", reader: readerName) }
        return Array(atr.prefix(Int(atrLength)))
    }

    public func transmitRaw(_ command: [UInt8]) throws(SmartCardError) -> [UInt8] {
        try ensureOpen()
        var response = [UInt8](repeating: 0, count: Self.receiveBufferSize)
        var responseLength = DWORD(response.count)
        var sendPci = activeProtocol == DWORD(SCARD_PROTOCOL_T0) ? g_rgSCardT0Pci : g_rgSCardT1Pci
        let rc = PCSCReturnCode(SCardTransmit(handle, &sendPci, command, DWORD(command.count), nil,
                                              &response, &responseLength))
        if rc == .resetCard {
            // Keep the connection usable for the retry the error asks for.
            reconnectAfterReset()
            resetSeen.withLock { $0 = true }
        }
        guard rc == .success else { throw SmartCardError.from(rc, function: "SCardTransmit", reader: readerName) }
        return Array(response.prefix(Int(responseLength)))
    }

    public func beginTransaction() throws(SmartCardError) -> Bool {
        try ensureOpen()
        var rc = PCSCReturnCode(SCardBeginTransaction(handle))
        var wasReset = resetSeen.withLock { seen in
            defer { seen = false }
            return seen
        }
        if rc == .resetCard {
            // Another program reset the card since our last command: pcsc-lite
            // refuses the handle until it reconnects.
            wasReset = true
            reconnectAfterReset()
            rc = PCSCReturnCode(SCardBeginTransaction(handle))
        }
        guard rc == .success else {
            throw SmartCardError.from(rc, function: "SCardBeginTransaction", reader: readerName)
        }
        return wasReset
    }

    public func endTransaction() {
        _ = SCardEndTransaction(handle, DWORD(SCARD_LEAVE_CARD))
    }

    private func reconnectAfterReset() {
        var proto: DWORD = 0
        _ = SCardReconnect(handle, shareMode, activeProtocol, DWORD(SCARD_LEAVE_CARD), &proto)
    }

    private func ensureOpen() throws(SmartCardError) {
        if closed.withLock({ $0 }) { throw .connectionClosed }
    }
}
