import AgentCard
import AgentProtocol
import AgentRuntime
import ISO7816
import PIV
import SmartCard
import Testing
import TestSupport

/// The card capability's part that needs no card: its failures as the
/// protocol's error kinds (docs/PROTOCOL.md, `card.*`: pcsc_unavailable,
/// no_card, device_unavailable, device_busy, pin_invalid with triesLeft,
/// pin_blocked naming `passkey card pin unblock`, already_registered,
/// card_error), the methods it adds to the table, and the zeroing of
/// secrets. The methods themselves need pcscd and a card: they are run
/// against the real pcscd in Scenarios/SmartCardScenarios.
@Suite(.ownThreads) struct CardErrorMappingTests {
    @Test("pcsc-lite's failures: each becomes the kind PROTOCOL.md names, with pcsc-lite's own words",
          arguments: [(SmartCardError.serviceNotRunning, AgentErrorKind.pcscUnavailable), (.noReaders, .noCard),
                      (.readerNotFound("R"), .noCard), (.noCard(reader: "R"), .noCard), (.cardRemoved(reader: "R"), .deviceUnavailable),
                      (.cardUnresponsive(reader: "R"), .deviceUnavailable), (.connectionClosed, .deviceUnavailable),
                      (.sharingViolation(reader: "R"), .deviceBusy), (.timedOut, .timeout), (.cancelled, .cancelled),
                      (.cardReset(reader: "R"), .cardError), (.malformedResponse("x"), .cardError), (.invalidCommand("x"), .cardError),
                      (.pcsc(function: "SCardTransmit", code: 0x80100016, text: "t"), .cardError)])
    func smartCardErrors(error: SmartCardError, kind: AgentErrorKind) {
        let mapped = AgentError(smartCard: error)
        #expect(mapped.kind == kind)
        #expect(mapped.message == error.description)
        #expect(mapped.details.isEmpty)
        #expect((error as any AgentErrorMapping).agentError == mapped, "the capability's errors map themselves the same way")
    }

    @Test("pcscd not running: the message says how to start it")
    func pcscdNotRunning() {
        #expect(AgentError(smartCard: .serviceNotRunning).message.contains("systemctl start pcscd.socket"))
    }

    @Test("the PIV client's failures: each becomes the kind PROTOCOL.md names",
          arguments: [(PIVError.notPIVCard(reader: "R"), AgentErrorKind.unsupported),
                      (.unsupportedKey(slot: .authentication, algorithm: "RSA-1024"), .unsupported),
                      (.invalidSecret("too short"), .invalidInput), (.invalidManagementKey("not hex"), .invalidInput),
                      (.pinRequired(slot: .keyManagement), .pinRequired), (.pinRequiredToRead(.cardholderUniqueIdentifier), .pinRequired),
                      (.noKey(slot: .keyManagement), .notFound), (.keyExists(slot: .keyManagement), .alreadyRegistered),
                      (.cardNotFound("serial 1"), .noCard), (.severalCards(["A", "B"]), .userSelectionRequired),
                      (.managementKeyRequired(operation: "generate"), .cardError), (.managementKeyRejected, .cardError),
                      (.cardNotAuthenticated, .cardError), (.cardRejected(operation: "x", status: StatusWord(0x6A80)), .cardError),
                      (.malformedResponse(operation: "x", reason: "y"), .cardError)])
    func pivErrors(error: PIVError, kind: AgentErrorKind) {
        let mapped = AgentError(piv: error)
        #expect(mapped.kind == kind)
        #expect(mapped.message == error.description)
        #expect((error as any AgentErrorMapping).agentError == mapped)
    }

    @Test("a wrong PIN or PUK: pin_invalid with the card's tries left in triesLeft", arguments: [0, 1, 2, 9])
    func wrongSecrets(tries: Int) {
        for error in [PIVError.wrongPIN(triesLeft: tries), .wrongPUK(triesLeft: tries)] {
            let mapped = AgentError(piv: error)
            #expect(mapped.kind == .pinInvalid)
            #expect(mapped.details == ["triesLeft": .number(Double(tries))])
            #expect(mapped.message == error.description)
        }
    }

    @Test("a blocked PIN names the way out (the PUK, `passkey card pin unblock`); a blocked PUK says only a reset helps; both triesLeft 0")
    func blockedSecrets() {
        let pin = AgentError(piv: .pinBlocked)
        #expect(pin == .cardBlocked(.pin))
        #expect(pin.kind == .pinBlocked && pin.details == ["triesLeft": .number(0)])
        #expect(pin.message.contains("passkey card pin unblock"))
        let puk = AgentError(piv: .pukBlocked)
        #expect(puk == .cardBlocked(.puk))
        #expect(puk.kind == .pinBlocked && puk.details == ["triesLeft": .number(0)])
        #expect(puk.message.contains("reset"))
    }

    @Test("a PC/SC failure inside a PIV error maps as the PC/SC failure itself")
    func nestedSmartCardErrors() {
        for error in [SmartCardError.serviceNotRunning, .sharingViolation(reader: "R"), .cardRemoved(reader: "R"), .timedOut] {
            #expect(AgentError(piv: .smartCard(error)) == AgentError(smartCard: error))
        }
    }

    @Test("the capability adds the seven card.* methods PROTOCOL.md lists, and nothing else")
    func registeredMethods() {
        let card = CardCapability()
        let table = MethodTable { card.register(into: &$0) }
        #expect(table.methodNames == ["card.changePIN", "card.list", "card.pinStatus", "card.plan", "card.replaceManagementKey",
                                      "card.setup", "card.unblockPIN"])
        // A person may be at the card (a PIN pad, a touch): no answer deadline shorter than a person's.
        for name in table.methodNames { #expect(table.answerWait(method: name) == .person, "\(name)") }
    }

    @Test("a secret's buffer is zeroed in place, its length kept")
    func zeroize() {
        var secret = Array("123456".utf8)
        secret.zeroize()
        #expect(secret == [0, 0, 0, 0, 0, 0])
        var empty: [UInt8] = []
        empty.zeroize()
        #expect(empty.isEmpty)
    }
}
