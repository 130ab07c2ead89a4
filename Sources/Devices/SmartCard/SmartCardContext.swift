import CPCSC
#if canImport(Glibc)
import Glibc
#endif

/// A connection to pcscd (`SCardEstablishContext`): lists readers, reports and
/// waits for card events, and opens card connections.
///
/// pcsc-lite serialises calls on one context; a thread blocked in
/// `waitForChange` holds it, so use a separate context for waiting if other
/// work must go on meanwhile. `cancelWait()` may be called from any thread.
public final class SmartCardContext: Sendable {
    let handle: SCARDCONTEXT

    /// The reader name pcsc-lite uses to report readers being added or removed.
    static let plugAndPlayReader = "\\\\?PnP?\\Notification"

    /// Connects to pcscd. Fails with `.serviceNotRunning` when it is not running.
    public init() throws(SmartCardError) {
        var context: SCARDCONTEXT = 0
        let rc = PCSCReturnCode(SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &context))
        guard rc == .success else { throw SmartCardError.from(rc, function: "SCardEstablishContext") }
        handle = context
    }

    deinit {
        _ = SCardReleaseContext(handle)
    }

    /// The names of the readers pcscd knows, in its order; empty when there is none.
    public func readerNames() throws(SmartCardError) -> [String] {
        var length: DWORD = 0
        var rc = PCSCReturnCode(SCardListReaders(handle, nil, nil, &length))
        if rc == .noReadersAvailable { return [] }
        guard rc == .success else { throw SmartCardError.from(rc, function: "SCardListReaders") }
        var buffer = [CChar](repeating: 0, count: Int(length))
        rc = PCSCReturnCode(SCardListReaders(handle, nil, &buffer, &length))
        if rc == .noReadersAvailable { return [] }
        guard rc == .success else { throw SmartCardError.from(rc, function: "SCardListReaders") }
        return Self.splitMultiString(buffer, length: Int(length))
    }

    /// The current status of the named readers (all readers when nil), without waiting.
    public func status(of names: [String]? = nil) throws(SmartCardError) -> [ReaderStatus] {
        let readers: [String]
        if let names { readers = names } else { readers = try readerNames() }
        if readers.isEmpty { return [] }
        return try getStatusChange(readers.map { ($0, DWORD(SCARD_STATE_UNAWARE)) }, timeoutMilliseconds: 0,
                                   timeoutIsError: false).filter { $0.name != Self.plugAndPlayReader }
    }

    /// Blocks until a card is inserted or removed in one of `known`'s readers,
    /// or a reader is added or removed; returns the new status of every reader.
    /// Pass the whole list `status()` (or the previous call) returned: its
    /// length is how pcsc-lite tells a reader was added or removed.
    ///
    /// Throws `.timedOut` after `timeout` (nil waits without limit) and
    /// `.cancelled` when `cancelWait()` is called.
    public func waitForChange(since known: [ReaderStatus], timeout: Duration?) throws(SmartCardError) -> [ReaderStatus] {
        var states = known.map { ($0.name, $0.eventState & ~DWORD(SCARD_STATE_CHANGED)) }
        // The plug-and-play pseudo reader's current state carries the reader count in its upper half.
        states.append((Self.plugAndPlayReader, DWORD(known.count) << 16))
        _ = try getStatusChange(states, timeoutMilliseconds: Self.milliseconds(timeout), timeoutIsError: true)
        return try status()
    }

    /// Blocks until a card is present in `reader`; returns its status.
    public func waitForCard(in reader: String, timeout: Duration?) throws(SmartCardError) -> ReaderStatus {
        var current = try status(of: [reader])
        while let status = current.first, !status.cardPresent {
            current = try getStatusChange([(reader, status.eventState & ~DWORD(SCARD_STATE_CHANGED))],
                                          timeoutMilliseconds: Self.milliseconds(timeout), timeoutIsError: true)
        }
        guard let status = current.first else { throw SmartCardError.readerNotFound(reader) }
        return status
    }

    /// Ends a `waitForChange`/`waitForCard` blocked on this context (from any thread).
    public func cancelWait() {
        _ = SCardCancel(handle)
    }

    /// Opens the card in `reader` using T=1 (T=0 if the card only speaks that),
    /// shared with other programs unless `exclusive`.
    public func connect(reader: String, exclusive: Bool = false) throws(SmartCardError) -> SmartCardConnection {
        try SmartCardConnection(context: self, reader: reader, exclusive: exclusive)
    }

    // MARK: Internals

    private func getStatusChange(_ readers: [(String, DWORD)], timeoutMilliseconds: DWORD,
                                 timeoutIsError: Bool) throws(SmartCardError) -> [ReaderStatus] {
        // The reader-name C strings must outlive the call.
        let names = readers.map { strdup($0.0) }
        defer { names.forEach { free($0) } }
        var states = readers.enumerated().map { index, reader in
            var state = SCARD_READERSTATE()
            state.szReader = UnsafePointer(names[index])
            state.dwCurrentState = reader.1
            return state
        }
        let rc = PCSCReturnCode(SCardGetStatusChange(handle, timeoutMilliseconds, &states, DWORD(states.count)))
        if rc == .timeout && !timeoutIsError {
            // A zero timeout with nothing new: the states still hold the answer.
        } else if rc != .success {
            throw SmartCardError.from(rc, function: "SCardGetStatusChange", reader: readers.count == 1 ? readers[0].0 : nil)
        }
        return states.enumerated().map { index, state in
            let atrLength = min(Int(state.cbAtr), Int(MAX_ATR_SIZE))
            let atr = withUnsafeBytes(of: state.rgbAtr) { Array($0.prefix(atrLength)) }
            return ReaderStatus(name: readers[index].0, eventState: state.dwEventState, atr: atr)
        }
    }

    private static func milliseconds(_ timeout: Duration?) -> DWORD {
        guard let timeout else { return DWORD(INFINITE) }
        let (seconds, attoseconds) = timeout.components
        let ms = max(0, seconds) * 1000 + max(0, attoseconds) / 1_000_000_000_000_000
        return DWORD(min(ms, Int64(UInt32.max - 1)))
    }

    static func splitMultiString(_ buffer: [CChar], length: Int) -> [String] {
        var names: [String] = []
        var current: [UInt8] = []
        for char in buffer.prefix(length) {
            if char == 0 {
                if current.isEmpty { break }
                names.append(String(decoding: current, as: UTF8.self))
                current = []
            } else {
                current.append(UInt8(bitPattern: char))
            }
        }
        return names
    }
}
