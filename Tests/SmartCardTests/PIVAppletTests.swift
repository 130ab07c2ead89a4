import Crypto
import Foundation
import Hexadecimal
import ISO7816
import PIV
import Reports
import SmartCard
import Testing
import TestSupport
import VirtualCard
import X509

/// The virtual PIV applet driven by the PIV client in one process: the card's
/// rules and the client's reading of them, fast. `PCSCTests` repeats the key
/// cases through pcscd, and OpenSC and yubico-piv-tool check the card independently.
@Suite("Virtual PIV card, in process", .ownThreads)
struct PIVAppletTests {
    let pin = Array("123456".utf8)
    let puk = Array("12345678".utf8)

    func openSession() throws -> (PIVSession, VirtualCard) {
        let (card, _) = try TestCards.pivCard()
        return (try PIVSession(channel: InProcessCardChannel(card: card)), card)
    }

    @Test("SELECT answers the application property template OpenSC requires")
    func selectReply() throws {
        let (card, _) = try TestCards.pivCard()
        for prefix in [[0xA0, 0x00, 0x00, 0x03, 0x08], [0xA0, 0x00, 0x00, 0x03, 0x08, 0x00, 0x00, 0x10, 0x00]] as [[UInt8]] {
            let response = card.process(.select(applicationIdentifier: prefix))
            #expect(response.status == .success)
            #expect(response.data == [0x61, 0x11, 0x4F, 0x06, 0x00, 0x00, 0x10, 0x00, 0x01, 0x00,
                                      0x79, 0x07, 0x4F, 0x05, 0xA0, 0x00, 0x00, 0x03, 0x08])
        }
        #expect(card.process(.select(applicationIdentifier: [0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01])).status
                == .fileNotFound)
    }

    @Test("a factory-new card: version 5.x, serial, CHUID, CCC, default PIN and management key")
    func factoryState() throws {
        let (session, _) = try openSession()
        #expect(session.firmwareVersion?.major == 5)
        #expect(try session.serialNumber() != nil)
        #expect(try session.chuidGUID()?.count == 16)
        #expect(try session.readObject(.cardCapabilityContainer) != nil)
        #expect(try session.readObject(.discovery) != nil)
        #expect(try session.pinState() == .notVerified(triesLeft: 3))
        #expect(try session.pinMetadata() == PIVPINMetadata(isDefault: true, retriesTotal: 3, retriesLeft: 3))
        #expect(try session.managementKeyMetadata()?.algorithm == .tripleDES)
        #expect(try session.managementKeyMetadata()?.isDefault == true)
        #expect(try session.keyMetadata(slot: .keyManagement) == nil)
        #expect(try session.readObject(.certificateKeyManagement) == nil)
    }

    @Test("wrong PINs count down 63C2, 63C1, block at 0 (6983), and the PUK unblocks")
    func pinRetries() throws {
        let (session, _) = try openSession()
        let wrong = Array("654321".utf8)
        #expect(throws: PIVError.wrongPIN(triesLeft: 2)) { try session.verifyPIN(wrong) }
        #expect(throws: PIVError.wrongPIN(triesLeft: 1)) { try session.verifyPIN(wrong) }
        #expect(throws: PIVError.pinBlocked) { try session.verifyPIN(wrong) }
        // Blocked: even the right PIN is refused, and nothing counts further.
        #expect(throws: PIVError.pinBlocked) { try session.verifyPIN(pin) }
        #expect(try session.pinState() == .blocked)

        #expect(throws: PIVError.wrongPUK(triesLeft: 2)) { try session.unblockPIN(puk: Array("87654321".utf8), newPIN: pin) }
        try session.unblockPIN(puk: puk, newPIN: Array("246810".utf8))
        #expect(try session.pinState() == .notVerified(triesLeft: 3))
        #expect(try session.pukMetadata()?.retriesLeft == 3)
        try session.verifyPIN(Array("246810".utf8))
        #expect(try session.pinState() == .verified)
    }

    @Test("a right PIN restores the counter")
    func rightPINRestores() throws {
        let (session, _) = try openSession()
        #expect(throws: PIVError.wrongPIN(triesLeft: 2)) { try session.verifyPIN(Array("000000".utf8)) }
        try session.verifyPIN(pin)
        try session.forgetPINVerification()
        #expect(try session.pinState() == .notVerified(triesLeft: 3))
    }

    @Test("PIN and PUK change with CHANGE REFERENCE DATA; malformed PINs never reach the card")
    func changeReferenceData() throws {
        let (session, _) = try openSession()
        try session.changePIN(current: pin, new: Array("13579111".utf8))
        #expect(throws: PIVError.wrongPIN(triesLeft: 2)) { try session.changePIN(current: pin, new: pin) }
        try session.verifyPIN(Array("13579111".utf8))
        #expect(try session.pinMetadata()?.isDefault == false)
        try session.changePUK(current: puk, new: Array("87654321".utf8))
        #expect(throws: PIVError.wrongPUK(triesLeft: 2)) { try session.changePUK(current: puk, new: puk) }

        #expect(throws: PIVError.self) { try session.verifyPIN(Array("123".utf8)) }
        #expect(throws: PIVError.self) { try session.verifyPIN(Array("123456789".utf8)) }
        #expect(try session.pinMetadata()?.retriesLeft == 3)
    }

    @Test("management key: 3DES default by mutual authentication, wrong key refused, AES keys after a change",
          arguments: [PIVAlgorithm.aes128, .aes192, .aes256, .tripleDES])
    func managementKey(algorithm: PIVAlgorithm) throws {
        let (session, _) = try openSession()
        let wrong = try PIVManagementKey(algorithm: .tripleDES, key: [UInt8](repeating: 7, count: 24))
        #expect(throws: PIVError.managementKeyRejected) { try session.authenticate(with: wrong) }
        try session.authenticate(with: .default)

        let newKey = try PIVManagementKey.random(algorithm: algorithm)
        try session.setManagementKey(newKey)
        #expect(try session.managementKeyAlgorithm() == algorithm)
        #expect(try session.managementKeyMetadata()?.isDefault == false)
        try session.authenticate(with: newKey)
        if algorithm != .tripleDES {
            #expect(throws: PIVError.managementKeyRejected) { try session.authenticate(with: .default) }
        }
    }

    @Test("key generation needs the management key; 9D needs the PIN; ECDH matches swift-crypto")
    func keyAgreement() throws {
        let (session, _) = try openSession()
        #expect(throws: PIVError.managementKeyRequired(operation: "generating a key")) {
            try session.generateKey(in: .keyManagement)
        }
        try session.authenticate(with: .default)
        let cardKey = try session.generateKey(in: .keyManagement)
        #expect(try session.publicKey(slot: .keyManagement) == cardKey)

        let peer = P256.KeyAgreement.PrivateKey()
        #expect(throws: PIVError.pinRequired(slot: .keyManagement)) {
            try session.sharedSecret(peer: peer.publicKey)
        }
        try session.verifyPIN(pin)
        let fromCard = try session.sharedSecret(peer: peer.publicKey)
        let inSoftware = try peer.sharedSecretFromKeyAgreement(with: cardKey.keyAgreementKey)
        #expect(fromCard.withUnsafeBytes { Array($0) } == inSoftware.withUnsafeBytes { Array($0) })
    }

    @Test("9C signs once per PIN verification; 9E needs no PIN; signatures verify")
    func signatures() throws {
        let (session, _) = try openSession()
        try session.authenticate(with: .default)
        let signatureKey = try session.generateKey(in: .signature)
        let cardAuthKey = try session.generateKey(in: .cardAuthentication)
        let message = Array("sign me".utf8)
        let digest = Array(SHA256.hash(data: message))

        let unattended = try session.signature(slot: .cardAuthentication, digest: digest)
        #expect(try cardAuthKey.signingKey.isValidSignature(unattended, for: SHA256.hash(data: message)))

        #expect(throws: PIVError.pinRequired(slot: .signature)) { try session.signature(slot: .signature, digest: digest) }
        try session.verifyPIN(pin)
        let signature = try session.signature(slot: .signature, digest: digest)
        #expect(try signatureKey.signingKey.isValidSignature(signature, for: SHA256.hash(data: message)))
        #expect(throws: PIVError.pinRequired(slot: .signature)) { try session.signature(slot: .signature, digest: digest) }
    }

    @Test("an empty slot says so")
    func emptySlot() throws {
        let (session, _) = try openSession()
        try session.verifyPIN(pin)
        #expect(throws: PIVError.noKey(slot: .keyManagement)) {
            try session.sharedSecret(peer: P256.KeyAgreement.PrivateKey().publicKey)
        }
        #expect(throws: PIVError.noKey(slot: .authentication)) { try session.publicKey(slot: .authentication) }
    }

    @Test("printed information needs the PIN to read; PUT DATA needs the management key")
    func objectAccess() throws {
        let (session, _) = try openSession()
        #expect(throws: PIVError.managementKeyRequired(operation: "writing object 5FC109")) {
            try session.writeObject(.printedInformation, value: [0x01, 0x02])
        }
        try session.authenticate(with: .default)
        try session.writeObject(.printedInformation, value: [0x01, 0x02])
        #expect(throws: PIVError.pinRequiredToRead(.printedInformation)) { try session.readObject(.printedInformation) }
        try session.verifyPIN(pin)
        #expect(try session.readObject(.printedInformation) == [0x01, 0x02])
        // An empty value deletes the object.
        try session.writeObject(.printedInformation, value: [])
        #expect(try session.readObject(.printedInformation) == nil)
    }

    @Test("retired slots hold keys too")
    func retiredSlots() throws {
        let (session, _) = try openSession()
        try session.authenticate(with: .default)
        let key = try session.generateKey(in: PIVSlot.retired[0])
        #expect(PIVSlot.retired[0].certificateObject == PIVObjectID(rawValue: 0x5FC10D))
        try session.verifyPIN(pin)
        let peer = P256.KeyAgreement.PrivateKey()
        let secret = try session.sharedSecret(slot: PIVSlot.retired[0], peer: peer.publicKey)
        let expected = try peer.sharedSecretFromKeyAgreement(with: key.keyAgreementKey)
        #expect(secret.withUnsafeBytes { Array($0) } == expected.withUnsafeBytes { Array($0) })
    }

    @Test("a reset forgets the PIN and the management-key authentication")
    func resetClearsSecurityState() throws {
        let (session, card) = try openSession()
        try session.verifyPIN(pin)
        try session.authenticate(with: .default)
        card.reset()
        _ = card.process(.select(applicationIdentifier: PIVSession.applicationIdentifier))
        #expect(try session.pinState() == .notVerified(triesLeft: 3))
        #expect(throws: PIVError.managementKeyRequired(operation: "writing object 5FC10D")) {
            try session.writeObject(PIVObjectID(rawValue: 0x5FC10D), value: [1])
        }
    }

    @Test("management key one-way authentication, as OpenSC does it")
    func oneWayAuthentication() throws {
        let (card, _) = try TestCards.pivCard()
        _ = card.process(.select(applicationIdentifier: PIVSession.applicationIdentifier))
        let challengeReply = card.process(CommandAPDU(ins: 0x87, p1: 0x03, p2: 0x9B, data: [0x7C, 0x02, 0x81, 0x00],
                                                      expectedLength: 256))
        #expect(challengeReply.status == .success)
        let challenge = try #require(try BERTLV.parseFirst(challengeReply.data).0.children().first(0x81)?.value)
        #expect(challenge.count == 8)
        // Encrypt the challenge with the default key through OpenSSL's command line, independently of our code.
        let encrypted = try opensslTripleDES(challenge)
        let response = card.process(CommandAPDU(ins: 0x87, p1: 0x03, p2: 0x9B,
                                                data: BERTLV(tag: 0x7C, children: [BERTLV(tag: 0x82, value: encrypted)]).encoded))
        #expect(response.status == .success)
        // Authenticated: PUT DATA works now.
        let put = card.process(CommandAPDU(ins: 0xDB, p1: 0x3F, p2: 0xFF, data: [0x5C, 0x03, 0x5F, 0xC1, 0x0D, 0x53, 0x01, 0x2A]))
        #expect(put.status == .success)
    }

    @Test("the state file keeps keys, counters and objects across restarts, with mode 0600")
    func statePersistence() throws {
        let directory = try TemporaryDirectory.make(prefix: "piv-state")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/nested/vcard.json"
        var publicKey: PIVPublicKey?
        do {
            let (card, _) = try TestCards.reopening { try TestCards.pivCard(stateFile: CardStateFile(path: path)) }
            let session = try PIVSession(channel: InProcessCardChannel(card: card))
            try session.authenticate(with: .default)
            publicKey = try session.generateKey(in: .keyManagement)
            #expect(throws: PIVError.wrongPIN(triesLeft: 2)) { try session.verifyPIN(Array("000000".utf8)) }
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let directoryAttributes = try FileManager.default.attributesOfItem(atPath: directory + "/nested")
        #expect((directoryAttributes[.posixPermissions] as? Int) == 0o700)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains(Hexadecimal.encode(Array("123456".utf8) + [0xFF, 0xFF])))

        let (card, _) = try TestCards.reopening { try TestCards.pivCard(stateFile: CardStateFile(path: path)) }
        let session = try PIVSession(channel: InProcessCardChannel(card: card))
        #expect(try session.publicKey(slot: .keyManagement) == publicKey)
        #expect(try session.pinState() == .notVerified(triesLeft: 2))
    }

    @Test("a damaged state file is a clear error, and the file is left alone")
    func damagedState() throws {
        let directory = try TemporaryDirectory.make(prefix: "piv-state")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/vcard.json"
        try "{ not json".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: VirtualCardError.self) { try TestCards.pivCard(stateFile: CardStateFile(path: path)) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{ not json")
    }

    @Test("setup generates 9D with a self-signed certificate that verifies, and refuses to overwrite")
    func setup() throws {
        let (session, _) = try openSession()
        let plan = try CardSetup.plan(session: session, usingDefaultManagementKey: true)
        #expect(plan.existingKey == .absent)
        let report = try CardSetup.run(session: session, pin: pin, managementKey: nil, replaceExistingKey: false)
        #expect(report.slot == PIVSlot.keyManagement.hex)
        #expect(report.pinIsDefault == true)
        #expect(report.managementKeyIsDefault)
        let certificate = try #require(try session.certificate(slot: .keyManagement))
        #expect(certificate.subject.description.contains("CN=passkey-agent key management"))
        #expect(CardPublicKey(try session.publicKey(slot: .keyManagement)) == report.publicKey)

        #expect(try CardSetup.plan(session: session, usingDefaultManagementKey: true).existingKey == .present)
        #expect(throws: PIVError.keyExists(slot: .keyManagement)) {
            try CardSetup.run(session: session, pin: pin, managementKey: nil, replaceExistingKey: false)
        }
        let replaced = try CardSetup.run(session: session, pin: pin, managementKey: nil, replaceExistingKey: true)
        #expect(replaced.replacedExistingKey)
        #expect(replaced.publicKey != report.publicKey)
    }

    @Test("the inventory describes the card")
    func inventory() throws {
        let (session, _) = try openSession()
        _ = try CardSetup.run(session: session, pin: pin, managementKey: nil, replaceExistingKey: false)
        let piv = try CardInventory.describe(session)
        #expect(piv.firmwareVersion == "5.4.3")
        #expect(piv.keys.map(\.slot) == [PIVSlot.keyManagement.hex])
        #expect(piv.keys.first?.algorithm == "P-256")
        #expect(piv.keys.first?.certificateSubject?.contains("passkey-agent") == true)
        #expect(piv.pukTriesLeft == 3)
    }

    /// 3DES-ECB encryption of one block under the default management key, by the `openssl` program.
    func opensslTripleDES(_ block: [UInt8]) throws -> [UInt8] {
        let directory = try TemporaryDirectory.make(prefix: "openssl")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = directory + "/in"
        FileManager.default.createFile(atPath: input, contents: Data(block))
        let result = try ProcessResult.run(
            "/usr/bin/openssl",
            ["enc", "-des-ede3", "-K", "010203040506070801020304050607080102030405060708", "-nopad", "-in", input,
             "-out", directory + "/out"],
            standardInput: nil, environment: ProcessInfo.processInfo.environment, scratch: directory, timeout: 30)
        #expect(result.status == 0, "openssl: \(result.standardError)")
        return Array(FileManager.default.contents(atPath: directory + "/out") ?? Data())
    }
}
