import CBOR
import ISO7816
import SmartCard
import Locking
import PacketDevice
import Synchronization

/// The FIDO applet on a card, selected, as libfido2's transport callbacks
/// drive it: INIT is answered from the SELECT, each CTAP message goes out as
/// NFCCTAP_MSG in `transmit` and is followed to its end in `receive`.
///
/// libfido2 calls `transmit` and `receive` on the thread that runs the
/// request (the device's queue), one after the other; only a cancel
/// (`fido_dev_cancel` → `transmit(CANCEL)`) comes from another thread, and it
/// only sets a flag the next keepalive poll reads. Hence `@unchecked`: the
/// channel, nonce and pending answer are confined to the request's thread.
final class FIDOAppletSession: @unchecked Sendable {
    let reader: String
    let version: FIDOAppletVersion
    private let exchange: NFCCTAPExchange
    private let onClose: @Sendable () -> Void

    private var nonce: [UInt8]?
    private var pending: Result<ResponseAPDU, NFCCTAPFailure>?
    /// The CTAP command byte of the request in flight (its answer is checked by it).
    private var pendingCommand: UInt8?

    private let cancelRequested = Atomic<Bool>(false)
    private let failure = Locked<NFCCTAPFailure?>(nil)
    private let keepaliveHandler = Locked<(@Sendable (UInt8) -> Void)?>(nil)
    private let closed = Atomic<Bool>(false)

    /// Opens the card in a PC/SC reader, shared, holding a transaction for
    /// the session's life so that no other program's APDUs (another applet's
    /// SELECT) come between ours, and selects the FIDO applet.
    static func open(reader: String, polling: KeepalivePolling = .standard) throws(FIDOError) -> FIDOAppletSession {
        let connection: SmartCardConnection
        do {
            connection = try SmartCardContext().connect(reader: reader)
        } catch {
            throw openingError(error, reader: reader)
        }
        do {
            _ = try connection.beginTransaction()
        } catch {
            connection.disconnect()
            throw openingError(error, reader: reader)
        }
        return try FIDOAppletSession(channel: connection, reader: reader, polling: polling) {
            connection.endTransaction()
            connection.disconnect()
        }
    }

    /// Selects the FIDO applet on `channel`; `onClose` runs once, when libfido2 closes the device.
    init(channel: any CardChannel, reader: String, polling: KeepalivePolling = .standard,
         onClose: @escaping @Sendable () -> Void = {}) throws(FIDOError) {
        self.reader = reader
        self.onClose = onClose
        exchange = NFCCTAPExchange(channel: channel, polling: polling)
        let answer: ResponseAPDU
        do {
            answer = try channel.transmit(NFCCTAPCommands.select)
        } catch {
            onClose()
            throw Self.openingError(error, reader: reader)
        }
        guard answer.status.isSuccess, let version = FIDOAppletVersion(selectAnswer: answer.data) else {
            onClose()
            let why = answer.status.isSuccess ? "its FIDO applet gave an unknown version" : "SELECT of the FIDO applet answered \(answer.status)"
            throw .noDevice("the card on \"\(reader)\" is not a FIDO security key (\(why))")
        }
        self.version = version
    }

    deinit { close() }

    func close() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) { onClose() }
    }

    /// The last transport failure of the request in flight (or the last one), for the error message.
    var lastFailure: NFCCTAPFailure? { failure.withLock { $0 } }

    func setKeepaliveHandler(_ handler: (@Sendable (UInt8) -> Void)?) {
        keepaliveHandler.withLock { $0 = handler }
    }

    // MARK: libfido2's transport calls

    /// tx: 0 when sent, -1 when not (libfido2 reports FIDO_ERR_TX).
    func transmit(command: UInt8, payload: [UInt8]) -> Int32 {
        switch command {
        case CTAPHID.Command.initialize.rawValue:
            guard payload.count == 8 else { return -1 }
            nonce = payload
            return 0
        case CTAPHID.Command.cbor.rawValue:
            cancelRequested.store(false, ordering: .releasing)
            failure.withLock { $0 = nil }
            do throws(NFCCTAPFailure) {
                pendingCommand = payload.first
                pending = .success(try exchange.send(payload))
                return 0
            } catch {
                pending = nil
                failure.withLock { $0 = error }
                return -1
            }
        case CTAPHID.Command.cancel.rawValue:
            cancelRequested.store(true, ordering: .releasing)
            return 0
        default:
            // CTAPHID_MSG (U2F) is never used: U2F fallback is off (FIDOLibrary).
            return -1
        }
    }

    /// rx: the number of bytes written to `buffer`, or -1 (FIDO_ERR_RX).
    /// `milliseconds` is what is left of the request's time (-1: no limit).
    func receive(command: UInt8, into buffer: UnsafeMutableBufferPointer<UInt8>, milliseconds: Int32) -> Int32 {
        switch command {
        case CTAPHID.Command.initialize.rawValue:
            return initReply(into: buffer)
        case CTAPHID.Command.cbor.rawValue:
            guard let first = pending else { return -1 }
            pending = nil
            var deadline: ContinuousClock.Instant?
            if milliseconds >= 0 { deadline = .now + .milliseconds(Int64(clamping: milliseconds)) }
            do throws(NFCCTAPFailure) {
                let answer = try exchange.complete(
                    try first.get(), deadline: deadline,
                    cancelRequested: { cancelRequested.load(ordering: .acquiring) },
                    keepalive: { status in
                        let handler = keepaliveHandler.withLock { $0 }
                        handler?(status)
                    })
                guard answer.count <= buffer.count else { throw .answerTooLong(answer.count, limit: buffer.count) }
                try Self.checkBody(of: answer, command: pendingCommand)
                guard let base = buffer.baseAddress else { return -1 }
                answer.withUnsafeBufferPointer { base.update(from: $0.baseAddress!, count: answer.count) }
                return Int32(clamping: answer.count)  // ≤ libfido2's buffer, checked above
            } catch {
                failure.withLock { $0 = error }
                return -1
            }
        default:
            return -1
        }
    }

    /// The card's CBOR is decoded with our bounded decoder before libfido2
    /// sees it: libcbor, under libfido2, allocates an array or map by its
    /// declared size before checking the items are there, so a few hostile
    /// bytes could ask for gigabytes (found by the nfc-transport fuzz target).
    /// That holds for the CBOR inside authenticator data too — the credential
    /// public key and the extensions of a makeCredential or getAssertion
    /// answer's `authData` (key 2), which libfido2 also hands to libcbor
    /// (found by the same target, a map declared with 559 million entries).
    static func checkBody(of answer: [UInt8], command: UInt8?) throws(NFCCTAPFailure) {
        guard answer.count > 1 else { return }
        let body: CBOR
        do throws(CBORError) {
            body = try CBOR.decode(Array(answer.dropFirst()))
        } catch {
            throw .malformedAnswer(error)
        }
        // authenticatorMakeCredential 0x01, authenticatorGetAssertion 0x02, authenticatorGetNextAssertion 0x08.
        guard let command, command == 0x01 || command == 0x02 || command == 0x08, case .bytes(let authData)? = body[2] else { return }
        try checkEmbeddedCBOR(inAuthenticatorData: authData)
    }

    /// Decodes, bounded, the CBOR items authenticator data carries (WebAuthn
    /// §6.1): the attested credential's public key when the AT flag is set,
    /// the extensions when ED is. A layout too short to hold them is left to
    /// libfido2, which refuses it without allocating by any declared size.
    static func checkEmbeddedCBOR(inAuthenticatorData data: [UInt8]) throws(NFCCTAPFailure) {
        guard data.count >= 37 else { return }
        let flags = data[32]
        var offset = 37
        do throws(CBORError) {
            if flags & 0x40 != 0 {
                guard data.count >= offset + 18 else { return }
                let idLength = Int(data[offset + 16]) << 8 | Int(data[offset + 17])
                offset += 18 + idLength
                guard offset < data.count else { return }
                offset += try CBOR.decodeFirst(data[offset...]).bytesUsed
            }
            if flags & 0x80 != 0, offset < data.count {
                _ = try CBOR.decodeFirst(data[offset...])
            }
        } catch {
            throw .malformedAnswer(error)
        }
    }

    /// The 17-byte CTAPHID_INIT reply libfido2 checks (reference/protocols.md
    /// §1): its nonce echoed, a channel id it only stores, CTAPHID protocol 2,
    /// version 0.0.0, and the capabilities the SELECT answer implies.
    private func initReply(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int32 {
        guard buffer.count == 17, let nonce, let base = buffer.baseAddress else { return -1 }
        self.nonce = nil
        let reply = nonce + [0x00, 0x00, 0x00, 0x01] + [0x02, 0x00, 0x00, 0x00, version.capabilities]
        reply.withUnsafeBufferPointer { base.update(from: $0.baseAddress!, count: reply.count) }
        return Int32(clamping: reply.count)
    }

    /// What a failure to reach the applet means to the user.
    static func openingError(_ error: SmartCardError, reader: String) -> FIDOError {
        switch error {
        case .noCard:
            return .noDevice("no security key on the reader \"\(reader)\": hold your key on it (or insert the card) and try again")
        case .readerNotFound, .noReaders, .serviceNotRunning:
            return .noDevice(error.description)
        default:
            return .deviceUnavailable(error.description)
        }
    }
}
