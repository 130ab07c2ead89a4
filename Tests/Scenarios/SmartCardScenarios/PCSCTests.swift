import Crypto
import Foundation
import Hexadecimal
import ISO7816
import PIV
import SmartCard
import Testing
import TestSupport

/// The PIV client and the virtual card through the real stack: libpcsclite,
/// a private pcscd, Debian's vpcd driver and `passkey-vcard` processes.
///
/// Serialized: the tests share one pcscd (libpcsclite allows one per
/// process), its two reader slots, and one of them stops pcscd.
@Suite("PIV card through pcscd and vpcd", .ownThreads, .serialized)
struct PCSCTests {
    let pin = Array("123456".utf8)
    let puk = Array("12345678".utf8)

    @Test("SELECT, version, serial and reader status through pcscd")
    func selectThroughPCSC() throws {
        let fixture = try PCSCFixture()
        let context = try SmartCardContext()
        #expect(try context.readerNames().contains(fixture.reader))
        let status = try #require(try context.status(of: [fixture.reader]).first)
        #expect(status.cardPresent)
        #expect(status.atr.first == 0x3B)

        let connection = try context.connect(reader: fixture.reader)
        #expect(try connection.answerToReset() == status.atr)
        let select = try connection.transmit(.select(applicationIdentifier: [0xA0, 0x00, 0x00, 0x03, 0x08]))
        #expect(select.status == .success)
        #expect(Array(select.data.prefix(2)) == [0x61, 0x11])

        let session = try PIVSession(channel: connection)
        #expect(session.firmwareVersion == PIVFirmwareVersion(major: 5, minor: 4, patch: 3))
        #expect(try session.serialNumber() != nil)
    }

    @Test("wrong PIN: 63C2 then 63C1 with tries left in the error, blocked at 0 (6983), PUK reset")
    func pinRetriesThroughPCSC() throws {
        let fixture = try PCSCFixture()
        let session = try fixture.session()
        let wrong = Array("999999".utf8)

        let first = #expect(throws: PIVError.self) { try session.verifyPIN(wrong) }
        #expect(first == .wrongPIN(triesLeft: 2))
        #expect(first?.description.contains("2 tries left") == true)
        let second = #expect(throws: PIVError.self) { try session.verifyPIN(wrong) }
        #expect(second == .wrongPIN(triesLeft: 1))
        #expect(second?.description.contains("1 try left") == true)
        #expect(throws: PIVError.pinBlocked) { try session.verifyPIN(wrong) }

        // Blocked means 6983 on the wire, even for the right PIN.
        let connection = try SmartCardContext().connect(reader: fixture.reader)
        _ = try connection.transmit(.select(applicationIdentifier: PIVSession.applicationIdentifier))
        let raw = try connection.transmit(CommandAPDU(ins: 0x20, p1: 0x00, p2: 0x80, data: pin + [0xFF, 0xFF]))
        #expect(raw.status == .authenticationMethodBlocked)
        let blocked = #expect(throws: PIVError.self) { try session.verifyPIN(pin) }
        #expect(blocked == .pinBlocked)
        #expect(blocked?.description.contains("passkey card pin unblock") == true)

        try session.unblockPIN(puk: puk, newPIN: Array("112233".utf8))
        try session.verifyPIN(Array("112233".utf8))
        #expect(try session.pinState() == .verified)
    }

    @Test("ECDH on the card equals a software ECDH with the same public key; ECDSA signatures verify")
    func keyOperationsThroughPCSC() throws {
        let fixture = try PCSCFixture()
        let session = try fixture.session()
        try session.authenticate(with: .default)
        let keyManagement = try session.generateKey(in: .keyManagement)
        let signing = try session.generateKey(in: .authentication)
        try session.verifyPIN(pin)

        for _ in 0..<3 {
            let peer = P256.KeyAgreement.PrivateKey()
            let fromCard = try session.sharedSecret(slot: .keyManagement, peer: peer.publicKey)
            let inSoftware = try peer.sharedSecretFromKeyAgreement(with: keyManagement.keyAgreementKey)
            #expect(fromCard.withUnsafeBytes { Array($0) } == inSoftware.withUnsafeBytes { Array($0) })
        }

        let message = Array("an assertion to sign".utf8)
        let signature = try session.signature(slot: .authentication, digest: Array(SHA256.hash(data: message)))
        #expect(try signing.signingKey.isValidSignature(signature, for: SHA256.hash(data: message)))
        #expect(!(try signing.signingKey.isValidSignature(signature, for: SHA256.hash(data: Array("other".utf8)))))
    }

    @Test("GET/PUT DATA of a 1.5 KB object goes through command and response chaining")
    func largeObjectThroughPCSC() throws {
        let fixture = try PCSCFixture()
        let session = try fixture.session()
        try session.authenticate(with: .default)
        let object = PIVObjectID(rawValue: 0x5FC10E)
        let value = (0..<1536).map { _ in UInt8.random(in: 0...255) }
        try session.writeObject(object, value: value)
        #expect(try session.readObject(object) == value)
        #expect(try fixture.session().readObject(object) == value)
    }

    @Test("the card's state survives a passkey-vcard restart")
    func stateSurvivesRestart() throws {
        let fixture = try PCSCFixture()
        let session = try fixture.session()
        try session.authenticate(with: .default)
        let key = try session.generateKey(in: .keyManagement)
        #expect(throws: PIVError.wrongPIN(triesLeft: 2)) { try session.verifyPIN(Array("000000".utf8)) }

        try fixture.removeCard()
        try fixture.reinsertCard()
        let again = try fixture.session()
        #expect(try again.publicKey(slot: .keyManagement) == key)
        #expect(try again.pinState() == .notVerified(triesLeft: 2))
        try again.verifyPIN(pin)
        let peer = P256.KeyAgreement.PrivateKey()
        let secret = try again.sharedSecret(peer: peer.publicKey)
        let expected = try peer.sharedSecretFromKeyAgreement(with: key.keyAgreementKey)
        #expect(secret.withUnsafeBytes { Array($0) } == expected.withUnsafeBytes { Array($0) })
    }

    @Test("card removed mid-operation: a clear error, and the next call works once it is back")
    func cardRemovedMidOperation() throws {
        let fixture = try PCSCFixture()
        let session = try fixture.session()
        try session.authenticate(with: .default)
        let key = try session.generateKey(in: .keyManagement)
        try session.verifyPIN(pin)

        try fixture.removeCard(kill: true)
        let error = #expect(throws: PIVError.self) {
            try session.sharedSecret(peer: P256.KeyAgreement.PrivateKey().publicKey)
        }
        #expect(error == .smartCard(.cardRemoved(reader: fixture.reader)))
        #expect(error?.description.contains("was removed") == true)
        #expect(throws: PIVError.smartCard(.noCard(reader: fixture.reader))) { try fixture.session() }

        try fixture.reinsertCard()
        let again = try fixture.session()
        try again.verifyPIN(pin)
        let peer = P256.KeyAgreement.PrivateKey()
        let secret = try again.sharedSecret(peer: peer.publicKey)
        let expected = try peer.sharedSecretFromKeyAgreement(with: key.keyAgreementKey)
        #expect(secret.withUnsafeBytes { Array($0) } == expected.withUnsafeBytes { Array($0) })
    }

    @Test("pcscd stopped: the clear \"pcscd is not running\" error; the card reconnects when it is back")
    func pcscdStopped() throws {
        let fixture = try PCSCFixture()
        let context = try SmartCardContext()
        _ = try context.status()
        fixture.harness.stopDaemon()
        defer { try? fixture.harness.startDaemon() }

        let fresh = #expect(throws: SmartCardError.self) { try SmartCardContext() }
        #expect(fresh == .serviceNotRunning)
        #expect(fresh?.description.contains("pcscd is not running") == true)
        #expect(fresh?.description.contains("systemctl start pcscd.socket") == true)
        #expect(throws: SmartCardError.serviceNotRunning) { try context.status() }

        try fixture.harness.startDaemon()
        // passkey-vcard retries with back-off and finds the new pcscd's vpcd.
        try fixture.waitForCard()
        let session = try fixture.session()
        try session.verifyPIN(pin)
    }

    @Test("a reset (disconnect with reset) forgets the PIN verification")
    func resetForgetsPIN() throws {
        let fixture = try PCSCFixture()
        let context = try SmartCardContext()
        let connection = try context.connect(reader: fixture.reader)
        let session = try PIVSession(channel: connection)
        try session.verifyPIN(pin)
        #expect(try session.pinState() == .verified)
        connection.disconnect(resetCard: true)
        #expect(throws: PIVError.smartCard(.connectionClosed)) { try session.pinState() }
        #expect(try fixture.session().pinState() == .notVerified(triesLeft: 3))
    }

    @Test("another program resetting the card: the session selects PIV again and knows the PIN is no longer verified")
    func resetByAnotherProgram() throws {
        let fixture = try PCSCFixture()
        let session = try fixture.session()
        try session.verifyPIN(pin)
        #expect(try session.pinState() == .verified)

        try SmartCardContext().connect(reader: fixture.reader).disconnect(resetCard: true)
        #expect(try session.pinState() == .notVerified(triesLeft: 3))
        try session.verifyPIN(pin)
        #expect(try session.pinState() == .verified)
    }

    @Test("another program holding the card exclusively is a sharing violation that names the usual culprits")
    func sharingViolation() throws {
        let fixture = try PCSCFixture()
        let holder = try SmartCardContext().connect(reader: fixture.reader, exclusive: true)
        defer { holder.disconnect() }
        let error = #expect(throws: PIVError.self) { try fixture.session() }
        #expect(error == .smartCard(.sharingViolation(reader: fixture.reader)))
        #expect(error?.description.contains("scdaemon") == true)
        #expect(error?.description.contains("yubikey-agent") == true)
    }

    @Test("waiting for a card times out, or is cancelled, with its own error")
    func waitingForACard() throws {
        let harness = try PCSCHarness.shared()
        let reader = harness.readerName(slot: 1)
        try PCSCFixture.waitUntilEmpty(reader)
        let context = try SmartCardContext()
        #expect(throws: SmartCardError.timedOut) { try context.waitForCard(in: reader, timeout: .milliseconds(300)) }

        let waiting = try SmartCardContext()
        let outcome = Outcome()
        let thread = Thread {
            do {
                _ = try waiting.waitForCard(in: reader, timeout: nil)
                outcome.set(nil)
            } catch {
                outcome.set(error)
            }
        }
        thread.start()
        // Cancel until the waiter has seen it (a cancel before it blocks is lost).
        while !outcome.isSet {
            waiting.cancelWait()
            usleep(50_000)
        }
        #expect(outcome.error == .cancelled)
        #expect(throws: SmartCardError.readerNotFound("No Such Reader 00 00")) {
            try context.connect(reader: "No Such Reader 00 00")
        }
    }

    @Test("two cards: the locator finds each by serial, CHUID or 9D key, and asks which when none is named")
    func twoCards() throws {
        let first = try PCSCFixture(slot: 0)
        let second = try PCSCFixture(slot: 1)
        let context = try SmartCardContext()
        let secondSession = try second.session()
        try secondSession.authenticate(with: .default)
        let key = try secondSession.generateKey(in: .keyManagement)
        let serial = try #require(try secondSession.serialNumber())
        let guid = try #require(try secondSession.chuidGUID())

        for identity in [PIVCardIdentity.serialNumber(serial), .chuidGUID(Hexadecimal.encode(guid)),
                         .keyManagementKey(key.hex)] {
            #expect(try PIVCardLocator.open(identity: identity, context: context).readerName == second.reader)
        }
        #expect(try PIVCardLocator.identities(of: secondSession).contains(.keyManagementKey(key.hex)))
        #expect(throws: PIVError.cardNotFound(PIVCardIdentity.serialNumber(1).description)) {
            try PIVCardLocator.open(identity: .serialNumber(1), context: context)
        }
        let ambiguous = #expect(throws: PIVError.self) { try PIVCardLocator.open(reader: nil, context: context) }
        #expect(ambiguous == .severalCards([first.reader, second.reader]))
    }
}

/// A result handed from a thread to the test.
final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var value: SmartCardError??

    func set(_ error: (any Error)?) {
        lock.lock()
        value = .some(error as? SmartCardError)
        lock.unlock()
    }

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value != nil
    }

    var error: SmartCardError? {
        lock.lock()
        defer { lock.unlock() }
        return value ?? nil
    }
}
