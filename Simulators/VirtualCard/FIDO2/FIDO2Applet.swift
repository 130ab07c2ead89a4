import Hexadecimal
import ISO7816
import Logging
import VirtualAuthenticator

/// The FIDO2 application of the virtual card: the CTAP 2.1 engine of the
/// virtual USB authenticator (`CTAP2Authenticator`) behind the ISO 7816
/// framing of CTAP over NFC (CTAP 2.1 §11.3).
///
/// - SELECT by the FIDO AID answers `FIDO_2_0` (CTAP2 only, no U2F APDUs).
/// - NFCCTAP_MSG `80 10 P1 00 Lc <command byte ‖ CBOR> 00` answers the CTAP
///   status byte ‖ CBOR with 9000; CTAP errors travel in the status byte.
///   The card assembles command chains and splits long answers into 256-byte
///   parts fetched with GET RESPONSE (`VirtualCard`).
/// - With P1 bit 0x80 (python-fido2) a request that may wait for the
///   simulated user runs on a worker thread: if it is not done within
///   `pollWaitMilliseconds` the card answers 9100 with
///   a keepalive status byte (1 PROCESSING, 2 UPNEEDED) and the client polls
///   NFCCTAP_GETRESPONSE `80 11 00 00`, or cancels with `80 11 11 00`.
///   With P1 = 0 (libfido2) the card answers when the request is done.
///
/// Power: a card reset, power-off or the selection of another applet is the
/// key leaving the field, so it is a CTAP power cycle: a running request is
/// cancelled, and a new engine instance takes over from the same stored
/// state (PIN/UV tokens and key agreement are gone; authenticatorReset is
/// allowed again for 10 s, as after a tap). The persistent state — master
/// secret, discoverable credentials, PIN, counters — is the `fido2` member
/// of the card's state file (`CardMemory`).
public final class FIDO2Applet: Applet {
    public let name = "FIDO2"
    public let applicationIdentifier = NFCCTAP.applicationIdentifier

    /// How long a request with P1 bit 0x80, or a poll, waits for the answer before 9100.
    static let pollWaitMilliseconds = 100

    private let configuration: VirtualAuthenticatorConfiguration
    private let store: CardAuthenticatorStore
    private let logger: Logger
    /// The engine of the current power cycle.
    public private(set) var authenticator: CTAP2Authenticator
    /// The request that answered 9100 and is being polled.
    private var inFlight: CTAPRequestInFlight?

    /// Loads the FIDO2 part of the card's memory, or creates a factory-new
    /// authenticator there. `configuration.statePath` must be nil (the card's
    /// memory is the state); its transports are reported as "nfc".
    public init(memory: CardMemory, configuration: VirtualAuthenticatorConfiguration = VirtualAuthenticatorConfiguration(),
                logger: Logger) throws(VirtualCardError) {
        var configuration = configuration
        configuration.transports = ["nfc"]
        self.configuration = configuration
        store = CardAuthenticatorStore(memory: memory)
        self.logger = logger
        authenticator = try Self.powerUp(configuration, store)
    }

    /// What the simulated user does when asked for a touch; kept across power cycles.
    public var presencePolicy: UserActionPolicy {
        get { authenticator.presencePolicy }
        set { authenticator.presencePolicy = newValue }
    }

    /// What the simulated user does when asked for a fingerprint; kept across power cycles.
    public var verificationPolicy: UserActionPolicy {
        get { authenticator.verificationPolicy }
        set { authenticator.verificationPolicy = newValue }
    }

    public func select() -> ResponseAPDU {
        abandonRequest()
        return ResponseAPDU(data: NFCCTAP.selectAnswerFIDO2, status: .success)
    }

    public func reset() {
        abandonRequest()
        let presence = authenticator.presencePolicy
        let verification = authenticator.verificationPolicy
        do {
            authenticator = try Self.powerUp(configuration, store)
            authenticator.presencePolicy = presence
            authenticator.verificationPolicy = verification
        } catch {
            // The stored state is the one the running engine wrote; keep that engine.
            logger.error("FIDO2 power cycle failed, keeping the running authenticator: \(error)")
        }
    }

    public func process(_ command: CommandAPDU) -> ResponseAPDU {
        guard command.cla == NFCCTAP.proprietaryClass else { return .status(.classNotSupported) }
        switch command.ins {
        case NFCCTAP.messageInstruction: return message(command)
        case NFCCTAP.getResponseInstruction: return getResponse(command)
        default: return .status(.instructionNotSupported)
        }
    }

    // MARK: NFCCTAP_MSG

    private func message(_ command: CommandAPDU) -> ResponseAPDU {
        guard command.p1 & ~NFCCTAP.clientSupportsGetResponse == 0, command.p2 == 0 else {
            return .status(.incorrectP1P2)
        }
        guard !command.data.isEmpty else { return .status(.wrongLength) }
        // A new request abandons one still being polled, as a new CTAPHID request would.
        abandonRequest()
        logger.debug("CTAP command 0x\(Hexadecimal.encode(command.data.prefix(1)))")
        // Inline when nothing can make the request wait (policies approve or deny):
        // no thread hand-off on the path every getAssertion takes.
        guard command.p1 & NFCCTAP.clientSupportsGetResponse != 0, authenticator.requestsMayWait else {
            return answer(authenticator.process(command.data))
        }
        let request = CTAPRequestInFlight(command.data, on: authenticator)
        if let response = request.response(waitingUpTo: Self.pollWaitMilliseconds) { return answer(response) }
        inFlight = request
        return stillProcessing(request)
    }

    // MARK: NFCCTAP_GETRESPONSE

    private func getResponse(_ command: CommandAPDU) -> ResponseAPDU {
        guard command.p1 == NFCCTAP.poll || command.p1 == NFCCTAP.cancel, command.p2 == 0 else {
            return .status(.incorrectP1P2)
        }
        guard let request = inFlight else { return .status(.conditionsOfUseNotSatisfied) }
        if command.p1 == NFCCTAP.cancel { request.cancel() }
        guard let response = request.response(waitingUpTo: Self.pollWaitMilliseconds) else {
            return stillProcessing(request)
        }
        inFlight = nil
        return answer(response)
    }

    // MARK: Helpers

    private func answer(_ response: [UInt8]) -> ResponseAPDU {
        if let status = response.first { logger.debug("CTAP status 0x\(Hexadecimal.encode([status]))") }
        return ResponseAPDU(data: response, status: .success)
    }

    private func stillProcessing(_ request: CTAPRequestInFlight) -> ResponseAPDU {
        ResponseAPDU(data: [request.keepalive.rawValue], status: NFCCTAP.stillProcessing)
    }

    private func abandonRequest() {
        inFlight?.abandon()
        inFlight = nil
    }

    private static func powerUp(_ configuration: VirtualAuthenticatorConfiguration,
                                _ store: CardAuthenticatorStore) throws(VirtualCardError) -> CTAP2Authenticator {
        do {
            return try CTAP2Authenticator(configuration: configuration, store: store)
        } catch {
            switch error {
            case .stateCorrupt(_, let reason):
                throw .invalidState(path: store.filePath, reason: "its member fido2: \(reason)")
            case .stateFormatUnsupported(_, let version):
                throw .invalidState(path: store.filePath,
                                    reason: "its member fido2 has format \(version), which this build does not know")
            case .stateNotWritable(_, let reason), .stateUnreadable(_, let reason):
                throw .stateFile(path: store.filePath, reason: reason)
            case .invalidPolicy, .invalidConfiguration:
                throw .invalidState(path: store.filePath, reason: error.description)
            }
        }
    }
}
