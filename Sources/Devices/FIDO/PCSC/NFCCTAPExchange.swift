import CBOR
import ISO7816
import SmartCard

#if canImport(Glibc)
import Glibc
#endif

/// Why a CTAP message over ISO 7816 got no answer. libfido2's transport
/// callbacks can only say -1; the session keeps this so the error the user
/// sees names the cause.
public enum NFCCTAPFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// PC/SC failed: the card left the reader, pcscd went away, …
    case card(SmartCardError)
    /// The card answered a status word CTAP over NFC does not allow here.
    case unexpectedStatus(StatusWord, answering: String)
    /// `9000` with no data: not even a CTAP status byte.
    case emptyAnswer
    /// The request's time ran out while the card kept saying "still working".
    case timedOut
    /// The answer does not fit the buffer libfido2 gave for it.
    case answerTooLong(Int, limit: Int)
    /// After the status byte comes something that is not one bounded CBOR item.
    case malformedAnswer(CBORError)

    /// The card (or key) is gone, rather than misbehaving.
    public var isCardGone: Bool {
        guard case .card(let error) = self else { return false }
        switch error {
        case .cardRemoved, .noCard, .cardUnresponsive, .cardReset, .connectionClosed, .readerNotFound, .noReaders,
             .serviceNotRunning, .pcsc:
            return true
        default:
            return false
        }
    }

    public var description: String {
        switch self {
        case .card(let error): return error.description
        case .unexpectedStatus(let status, let command): return "the card answered \(command) with \(status)"
        case .emptyAnswer: return "the card answered a CTAP command with no status byte"
        case .timedOut: return "the card was still working when the request's time ran out"
        case .answerTooLong(let count, let limit): return "the card's answer is \(count) bytes, more than the \(limit) expected"
        case .malformedAnswer(let error): return "the card's answer is not well-formed CBOR (\(error))"
        }
    }
}

/// How often a card that answered `9100` (keepalive) is asked again: soon at
/// first, since most commands finish quickly, then every `maximum`
/// (python-fido2 polls every 100 ms).
public struct KeepalivePolling: Sendable, Equatable {
    public var first: Duration
    public var maximum: Duration
    /// How long a card that was asked to cancel may keep working before the
    /// request is abandoned as cancelled anyway.
    public var cancelGrace: Duration

    public init(first: Duration, maximum: Duration, cancelGrace: Duration) {
        self.first = first
        self.maximum = maximum
        self.cancelGrace = cancelGrace
    }

    public static let standard = KeepalivePolling(first: .milliseconds(2), maximum: .milliseconds(100), cancelGrace: .seconds(1))
}

/// One CTAP message to the FIDO applet and its answer (CTAP 2.1 §11.3):
/// NFCCTAP_MSG (command-chained past 255 bytes), then, while the card answers
/// `9100`, NFCCTAP_GETRESPONSE polls; `61xx` parts are fetched with GET
/// RESPONSE by `CardChannel.transmit`. The result is the CTAP status byte and
/// the CBOR that follows it.
struct NFCCTAPExchange {
    let channel: any CardChannel
    var polling: KeepalivePolling = .standard
    /// The most answer bytes collected over GET RESPONSE: more than any buffer libfido2 passes.
    static let maximumAnswer = 65536

    private var options: TransmitOptions {
        TransmitOptions(useExtendedLength: false, chainingBlockSize: CommandAPDU.maximumShortData,
                        maximumResponseLength: Self.maximumAnswer)
    }

    /// Sends the message; returns the card's first answer (often the whole of it).
    func send(_ message: [UInt8]) throws(NFCCTAPFailure) -> ResponseAPDU {
        do {
            return try channel.transmit(NFCCTAPCommands.message(message), options: options)
        } catch {
            throw .card(error)
        }
    }

    /// Follows `first` to the end: keepalives (each reported to `keepalive`),
    /// a cancel when `cancelRequested` turns true, the deadline.
    func complete(_ first: ResponseAPDU, deadline: ContinuousClock.Instant?,
                  cancelRequested: () -> Bool, keepalive: (UInt8) -> Void) throws(NFCCTAPFailure) -> [UInt8] {
        let clock = ContinuousClock()
        var answer = first
        var asked = "NFCCTAP_MSG"
        var wait = polling.first
        var cancelledAt: ContinuousClock.Instant?
        while true {
            if answer.status.isSuccess {
                guard !answer.data.isEmpty else { throw .emptyAnswer }
                return answer.data
            }
            if cancelledAt != nil {
                // The card may answer the cancel with anything but "still working":
                // the request is over, and cancelled.
                guard answer.status == NFCCTAPCommands.keepaliveStatus else { return Self.cancelledStatus }
            }
            guard answer.status == NFCCTAPCommands.keepaliveStatus else {
                throw .unexpectedStatus(answer.status, answering: asked)
            }
            if let status = answer.data.first { keepalive(status) }

            let now = clock.now
            if let cancelledAt, now - cancelledAt >= polling.cancelGrace { return Self.cancelledStatus }
            if let deadline, now >= deadline {
                // Tell the card to stop waiting for the person, then give up.
                _ = try? channel.transmit(NFCCTAPCommands.cancel, options: options)
                throw .timedOut
            }
            var command = NFCCTAPCommands.poll
            if cancelledAt == nil && cancelRequested() {
                command = NFCCTAPCommands.cancel
                cancelledAt = now
                asked = "the cancel request"
            } else {
                var pause = wait
                if let deadline { pause = min(pause, max(.zero, deadline - now)) }
                if pause > .zero { clock.sleep(for: pause) }
                wait = min(wait * 2, polling.maximum)
                asked = "NFCCTAP_GETRESPONSE"
            }
            do {
                answer = try channel.transmit(command, options: options)
            } catch {
                throw .card(error)
            }
        }
    }

    /// CTAP2_ERR_KEEPALIVE_CANCEL, as a card that honoured the cancel would answer.
    static let cancelledStatus: [UInt8] = [0x2D]
}

extension ContinuousClock {
    /// A blocking sleep (the transport runs on libfido2's thread, not in a task).
    fileprivate func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }
}
