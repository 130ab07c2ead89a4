import CBOR
import Crypto
import Foundation
import ISO7816
import SmartCardTestSupport
import Testing
import TestSupport
import VirtualAuthenticator
import VirtualCard
import WebAuthn

/// The FIDO2 applet of the virtual card, driven with APDUs in one process:
/// CTAP over ISO 7816 (SELECT, NFCCTAP_MSG, chaining both ways, 9100 +
/// NFCCTAP_GETRESPONSE, cancel), its status words for what it refuses, and
/// its state in the card's state file. `FIDO2PCSCTests` repeats the basics
/// through pcscd, and python-fido2 checks the applet independently.
@Suite("Virtual FIDO2 card applet, in process", .ownThreads)
struct FIDO2AppletTests {
    func client(_ card: VirtualCard) throws -> (FIDO2CardClient, InProcessCardChannel) {
        let channel = InProcessCardChannel(card: card)
        let client = FIDO2CardClient(channel: channel)
        #expect(try client.select().status == .success)
        return (client, channel)
    }

    /// Registers a credential and returns its id and public key.
    func register(_ client: inout FIDO2CardClient, excludeList: [[UInt8]] = []) throws -> ([UInt8], COSEKey, AuthenticatorData) {
        let (status, body) = try client.send(0x01, FIDO2Requests.makeCredential(excludeList: excludeList))
        #expect(status == 0)
        let raw = try #require(body?[2]?.bytesValue)
        let authenticatorData = try AuthenticatorData(bytes: raw)
        let attested = try #require(authenticatorData.attestedCredentialData)
        // packed self attestation, signed by the new credential over authData ‖ clientDataHash.
        #expect(body?[1]?.textValue == "packed")
        let signature = try #require(body?[3]?["sig"]?.bytesValue)
        #expect(attested.publicKey.isValidSignature(signature, for: raw + FIDO2Requests.clientDataHash))
        return (attested.credentialId, attested.publicKey, authenticatorData)
    }

    @Test("SELECT by the FIDO AID answers FIDO_2_0 9000; the PIV applet stays selectable beside it")
    func select() throws {
        let (card, _) = try TestCards.fido2Card()
        let response = card.process(.select(applicationIdentifier: FIDO2CardClient.applicationIdentifier))
        #expect(response == ResponseAPDU(data: Array("FIDO_2_0".utf8), status: .success))
        #expect(card.process(.select(applicationIdentifier: [0xA0, 0x00, 0x00, 0x03, 0x08])).status == .success)
        // Back to FIDO2: CTAP works after the PIV applet had the card.
        var (client, _) = try client(card)
        #expect(try client.send(0x04).status == 0)
    }

    @Test("GetInfo over NFCCTAP_MSG: versions, AAGUID, transport nfc, a PIN-only key by default")
    func getInfo() throws {
        let (card, _) = try TestCards.fido2Card()
        var (client, channel) = try client(card)
        // The exact APDU python-fido2 probes with.
        let raw = card.process(apdu: [0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00])
        #expect(raw.suffix(2) == [0x90, 0x00] || raw.suffix(2).first == 0x61)
        let (status, info) = try client.send(0x04)
        #expect(status == 0)
        #expect(info?[1]?.arrayValue?.contains("FIDO_2_1") == true)
        #expect(info?[3]?.bytesValue == VirtualAuthenticatorConfiguration.defaultAAGUID)
        #expect(info?[9] == ["nfc"])
        #expect(info?[4]?["clientPin"] == false)
        #expect(info?[4]?["uv"] == nil)
        #expect(channel.sentCommands.allSatisfy { $0.count <= 5 + 255 + 1 })
    }

    @Test("makeCredential and getAssertion: a chained command (CLA 0x90) and a 61xx-chained answer, signatures verify")
    func registrationAndAssertion() throws {
        let (card, _) = try TestCards.fido2Card()
        var (client, channel) = try client(card)
        // Eight 64-byte ids nobody issued: a request far longer than one short APDU.
        let strangers = (0..<8).map { index in [UInt8](repeating: UInt8(index), count: 64) }
        let (credentialId, publicKey, registered) = try register(&client, excludeList: strangers)
        #expect(channel.sentCommands.contains { $0.first == 0x90 && $0[1] == 0x10 })
        #expect(registered.rpIdHash == Array(SHA256.hash(data: Array(FIDO2Requests.rpId.utf8))))

        // Discoverable: found without an allow list; the answer names the user.
        channel.clearSentCommands()
        let (status, body) = try client.send(0x02, FIDO2Requests.getAssertion())
        #expect(status == 0)
        #expect(body?[1]?["id"]?.bytesValue == credentialId)
        #expect(body?[4]?["id"]?.bytesValue == [1, 2, 3, 4])
        let authenticatorData = try #require(body?[2]?.bytesValue)
        let signature = try #require(body?[3]?.bytesValue)
        #expect(publicKey.isValidSignature(signature, for: authenticatorData + FIDO2Requests.clientDataHash))
        #expect(try AuthenticatorData(bytes: authenticatorData).signCount > registered.signCount)

        // makeCredential's answer (authData with the key, a signature) is longer than 256 bytes:
        // it came in parts, each at most 256 data bytes.
        channel.clearSentCommands()
        _ = try register(&client)
        #expect(channel.sentCommands.contains { $0.starts(with: [0x00, 0xC0, 0x00, 0x00]) })
        #expect(channel.receivedResponses.allSatisfy { $0.count <= 258 })
    }

    @Test("libfido2's way (P1 = 0): the card answers when the user has acted, with no 9100")
    func withoutPolling() throws {
        let (card, applet) = try TestCards.fido2Card()
        var (client, _) = try client(card)
        client.pollsForResponse = false
        applet.presencePolicy = .approveAfter(milliseconds: 300)
        _ = try register(&client)
        #expect(client.keepalives.isEmpty)
    }

    @Test("python-fido2's way (P1 = 0x80): 9100 with a keepalive status while the user thinks, then the answer")
    func keepalivePolling() throws {
        let (card, applet) = try TestCards.fido2Card()
        var (client, _) = try client(card)
        // Far longer than the card's first wait for the answer, so the first reply is 9100.
        applet.presencePolicy = .approveAfter(milliseconds: 1000)
        _ = try register(&client)
        #expect(!client.keepalives.isEmpty)
        #expect(client.keepalives.allSatisfy { $0 == 1 || $0 == 2 })
    }

    @Test("UPNEEDED while the user is asked; cancel (80 11 11 00) then ends the wait with KEEPALIVE_CANCEL")
    func cancel() throws {
        let (card, applet) = try TestCards.fido2Card()
        var (client, _) = try client(card)
        applet.presencePolicy = .timeout(milliseconds: nil)
        let (status, _) = try client.send(0x01, FIDO2Requests.makeCredential(), cancelWhen: { $0 == 2 })
        #expect(status == CTAPStatus.keepaliveCancel.rawValue)
        #expect(client.keepalives.contains(2))
        // The card is free again.
        applet.presencePolicy = .approve
        #expect(try client.send(0x04).status == 0)
    }

    @Test("a refused touch is OPERATION_DENIED in the status byte, with SW 9000")
    func denied() throws {
        let (card, applet) = try TestCards.fido2Card()
        var (client, _) = try client(card)
        applet.presencePolicy = .deny
        #expect(try client.send(0x01, FIDO2Requests.makeCredential()).status == CTAPStatus.operationDenied.rawValue)
    }

    @Test("a card reset (the key leaving the field) cancels a polled request and keeps the card usable")
    func resetWhilePolling() throws {
        let (card, applet) = try TestCards.fido2Card()
        let (client, _) = try client(card)
        applet.presencePolicy = .timeout(milliseconds: nil)
        var request = [UInt8(0x01)]
        FIDO2Requests.makeCredential(residentKey: false).encode(into: &request)
        let first = card.process(CommandAPDU(cla: 0x80, ins: 0x10, p1: 0x80, p2: 0x00, data: request, expectedLength: 256))
        #expect(first.status == StatusWord(0x9100))
        card.reset()
        // After the power cycle no applet is selected, and once selected there is nothing to poll.
        #expect(card.process(apdu: [0x80, 0x11, 0x00, 0x00, 0x00]).suffix(2) == [0x6D, 0x00])
        #expect(try client.select().status == .success)
        #expect(card.process(apdu: [0x80, 0x11, 0x00, 0x00, 0x00]).suffix(2) == [0x69, 0x85])
        // The simulated user's policy outlives the power cycle.
        #expect(applet.presencePolicy == .timeout(milliseconds: nil))
        applet.presencePolicy = .approve
        var again = client
        #expect(try again.send(0x04).status == 0)
    }

    @Test("what the applet refuses: wrong CLA 6E00, unknown INS 6D00, bad P1/P2 6A86, no data 6700, no request to poll 6985")
    func refusals() throws {
        let (card, _) = try TestCards.fido2Card()
        _ = try client(card)
        func sw(_ apdu: [UInt8]) -> [UInt8] { Array(card.process(apdu: apdu).suffix(2)) }
        #expect(sw([0x00, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00]) == [0x6E, 0x00])
        #expect(sw([0x84, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00]) == [0x6E, 0x00])
        #expect(sw([0x80, 0x12, 0x00, 0x00, 0x00]) == [0x6D, 0x00])
        #expect(sw([0x00, 0x01, 0x00, 0x00, 0x00]) == [0x6E, 0x00])  // a U2F register: not offered
        #expect(sw([0x80, 0x10, 0x01, 0x00, 0x01, 0x04, 0x00]) == [0x6A, 0x86])
        #expect(sw([0x80, 0x10, 0x80, 0x01, 0x01, 0x04, 0x00]) == [0x6A, 0x86])
        #expect(sw([0x80, 0x11, 0x05, 0x00, 0x00]) == [0x6A, 0x86])
        #expect(sw([0x80, 0x10, 0x80, 0x00, 0x00]) == [0x67, 0x00])
        #expect(sw([0x80, 0x11, 0x00, 0x00, 0x00]) == [0x69, 0x85])
        // Malformed lengths: Lc beyond the bytes sent, a truncated header, Lc with no data.
        #expect(sw([0x80, 0x10, 0x80, 0x00, 0x05, 0x04]) == [0x67, 0x00])
        #expect(sw([0x80, 0x10, 0x80]) == [0x67, 0x00])
        #expect(sw([0x80, 0x10, 0x80, 0x00, 0x02, 0x04]) == [0x67, 0x00])
        // A CTAP error travels in the status byte: an unknown CTAP command.
        let unknown = card.process(apdu: [0x80, 0x10, 0x80, 0x00, 0x01, 0x55, 0x00])
        #expect(unknown == [CTAPStatus.invalidCommand.rawValue, 0x90, 0x00])
        // Before SELECT (after a reset) nothing is selected.
        card.reset()
        #expect(sw([0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00]) == [0x6D, 0x00])
    }

    @Test("state: the fido2 member of the card's state file keeps credentials beside the PIV state; an old file loads")
    func statePersistence() throws {
        let directory = try TemporaryDirectory.make(prefix: "fido2-state")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/vcard.json"
        // A card state written before the FIDO2 applet existed: PIV only.
        var serial: UInt32 = 0
        do { serial = try TestCards.pivCard(stateFile: CardStateFile(path: path)).1.serialNumber }
        let old = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!old.contains("fido2"))

        var credentialId: [UInt8] = []
        do {
            let (card, _) = try TestCards.reopening { try TestCards.fido2Card(stateFile: CardStateFile(path: path)) }
            var (client, _) = try client(card)
            credentialId = try register(&client).0
            // A PIV write after the FIDO2 one (a wrong PIN costs a try) keeps the fido2 member.
            #expect(card.process(.select(applicationIdentifier: [0xA0, 0x00, 0x00, 0x03, 0x08])).status == .success)
            let wrongPIN = CommandAPDU(ins: 0x20, p1: 0x00, p2: 0x80, data: Array("999999".utf8) + [0xFF, 0xFF])
            #expect(card.process(wrongPIN).status == .verificationFailed(triesLeft: 2))
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let fido2 = try #require(document["fido2"] as? [String: Any])
        #expect(fido2["format"] as? Int == 1)
        #expect((fido2["discoverableCredentials"] as? [Any])?.count == 1)
        #expect(document["serialNumber"] as? Int == Int(serial))

        // Again from the file: the PIV card is the same one, the credential is still there.
        let (card, _) = try TestCards.reopening { try TestCards.fido2Card(stateFile: CardStateFile(path: path)) }
        var (client, _) = try client(card)
        let (status, body) = try client.send(0x02, FIDO2Requests.getAssertion())
        #expect(status == 0)
        #expect(body?[1]?["id"]?.bytesValue == credentialId)
        let session = try PIVSessionProbe.serial(card)
        #expect(session == serial)
    }

    @Test("a card with only the FIDO2 applet writes only the fido2 member")
    func fido2OnlyState() throws {
        let directory = try TemporaryDirectory.make(prefix: "fido2-state")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/vcard.json"
        do {
            let memory = try TestCards.reopening { try CardMemory(file: CardStateFile(path: path)) }
            let card = VirtualCard(applets: [try FIDO2Applet(memory: memory, logger: TestCards.logger)], logger: TestCards.logger)
            var (client, _) = try client(card)
            _ = try register(&client)
        }
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect(Set(document.keys) == ["fido2"])
        // The PIV applet, added later, starts factory-new beside it and keeps it.
        let (card, _) = try TestCards.reopening { try TestCards.fido2Card(stateFile: CardStateFile(path: path)) }
        var (client, _) = try client(card)
        #expect(try client.send(0x02, FIDO2Requests.getAssertion()).status == 0)
        let both = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        #expect(both["fido2"] != nil && both["serialNumber"] != nil)
    }

    @Test("a damaged fido2 member is a clear error naming the file and the member")
    func damagedFIDO2State() throws {
        let directory = try TemporaryDirectory.make(prefix: "fido2-state")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/vcard.json"
        try #"{ "fido2": { "format": 1, "masterSecret": "AAAA", "signatureCounterCeiling": 0, "pinRetries": 8, "uvRetries": 8, "nextCreationOrder": 0, "discoverableCredentials": [] } }"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let error = #expect(throws: VirtualCardError.self) { try TestCards.fido2Card(stateFile: CardStateFile(path: path)) }
        #expect(error?.description.contains("fido2") == true)
        #expect(error?.description.contains("masterSecret") == true, "\(error.map(String.init(describing:)) ?? "")")
    }
}

/// The PIV applet's serial number through GET SERIAL, to tell one card from another.
enum PIVSessionProbe {
    static func serial(_ card: VirtualCard) throws -> UInt32 {
        #expect(card.process(.select(applicationIdentifier: [0xA0, 0x00, 0x00, 0x03, 0x08])).status == .success)
        let response = card.process(CommandAPDU(ins: 0xF8, p1: 0x00, p2: 0x00, expectedLength: 256))
        guard response.status == .success, response.data.count == 4 else { throw ClientFailure("GET SERIAL failed") }
        return response.data.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
