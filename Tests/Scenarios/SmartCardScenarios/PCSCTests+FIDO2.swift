import CBOR
import Foundation
import ISO7816
import SmartCard
import SmartCardTestSupport
import Testing
import TestSupport
import VirtualAuthenticator

/// The virtual card's FIDO2 applet through the real stack (libpcsclite, a
/// private pcscd, vpcd, `passkey-vcard`): in `PCSCTests` so it shares the
/// serialized use of the readers.
extension PCSCTests {
    @Test("FIDO2 applet through pcscd: SELECT answers FIDO_2_0, GetInfo over NFCCTAP_MSG, PIV beside it")
    func fido2SelectAndGetInfoThroughPCSC() throws {
        let fixture = try PCSCFixture()
        let connection = try SmartCardContext().connect(reader: fixture.reader)
        var client = FIDO2CardClient(channel: connection)
        let select = try client.select()
        #expect(select == ResponseAPDU(data: Array("FIDO_2_0".utf8), status: .success))

        let (status, info) = try client.send(0x04)
        #expect(status == 0)
        #expect(info?[1]?.arrayValue?.contains("FIDO_2_0") == true)
        #expect(info?[3]?.bytesValue == VirtualAuthenticatorConfiguration.defaultAAGUID)
        #expect(info?[9] == ["nfc"])
        #expect(info?[4]?["clientPin"] == false)

        // The default card has both applets: PIV answers on the same connection.
        let piv = try connection.transmit(.select(applicationIdentifier: [0xA0, 0x00, 0x00, 0x03, 0x08]))
        #expect(piv.status == .success)
    }

    @Test("FIDO2 applet through pcscd: a registration and an assertion, chained both ways, with 9100 polling")
    func fido2RegistrationThroughPCSC() throws {
        let fixture = try PCSCFixture(options: ["--applets", "fido2", "--presence", "approve-after:1000"])
        let connection = try SmartCardContext().connect(reader: fixture.reader)
        var client = FIDO2CardClient(channel: connection)
        #expect(try client.select().status == .success)
        // Only the FIDO2 applet is on this card.
        #expect(try connection.transmit(.select(applicationIdentifier: [0xA0, 0x00, 0x00, 0x03, 0x08])).status == .fileNotFound)
        #expect(try client.select().status == .success)

        let strangers = (0..<8).map { index in [UInt8](repeating: UInt8(index), count: 64) }
        let (status, body) = try client.send(0x01, FIDO2Requests.makeCredential(excludeList: strangers))
        #expect(status == 0)
        #expect(body?[1]?.textValue == "packed")
        #expect(!client.keepalives.isEmpty)

        let (assertionStatus, assertion) = try client.send(0x02, FIDO2Requests.getAssertion())
        #expect(assertionStatus == 0)
        #expect(assertion?[4]?["id"]?.bytesValue == [1, 2, 3, 4])
    }

    @Test("python-fido2 (CtapPcscDevice on pyscard) against the FIDO2 applet: PIN, registration, assertions, hmac-secret, its own verification")
    func pythonFIDO2ThroughPCSC() throws {
        // The user takes a moment for every touch, so python-fido2 polls through 9100 as with a real key.
        let fixture = try PCSCFixture(options: ["--presence", "approve-after:400"])
        guard FileManager.default.isExecutableFile(atPath: Interop.python) else {
            throw HarnessError("python-fido2's environment is not installed at \(Interop.python): run ./scripts/test, which installs it")
        }
        let pinFile = try TemporaryDirectory.make(prefix: "pin", in: fixture.harness.directory) + "/pin"
        try TextFile.write("4821\n", to: pinFile)
        let result = try fixture.harness.run(Interop.python, [Interop.packageRoot + "/Tests/Interop/fido2_over_pcsc.py", fixture.reader],
                                             standardInput: pinFile, timeout: 180)
        #expect(result.status == 0, "python-fido2 disagreed with the applet:\n\(result.standardError)\ncard log:\n\(fixture.card.log)")
        let line = try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
        let facts = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(facts["aaguid"] as? String == "6f4d2a1e9c3b4e578a602b7d1c5e9f03")
        #expect(facts["pinRetriesAfterWrongPIN"] as? Int == 7)
        #expect((facts["touchPrompts"] as? Int ?? 0) > 0)
        #expect((facts["credentialId"] as? String)?.isEmpty == false)
    }

    @Test("python-fido2 cancels a request waiting for a touch (NFCCTAP_GETRESPONSE P1 0x11): KEEPALIVE_CANCEL, and the card answers on")
    func pythonFIDO2CancelThroughPCSC() throws {
        let fixture = try PCSCFixture(options: ["--applets", "fido2", "--presence", "timeout"])
        guard FileManager.default.isExecutableFile(atPath: Interop.python) else {
            throw HarnessError("python-fido2's environment is not installed at \(Interop.python): run ./scripts/test, which installs it")
        }
        let result = try fixture.harness.run(Interop.python, [Interop.packageRoot + "/Tests/Interop/fido2_over_pcsc.py",
                                                              fixture.reader, "--cancel"], timeout: 120)
        #expect(result.status == 0, "python-fido2 disagreed with the applet:\n\(result.standardError)\ncard log:\n\(fixture.card.log)")
        #expect(result.standardOutput.contains("\"cancelled\": true"))
    }

    @Test("passkey-vcard refuses unknown applets and policies with a clear message")
    func vcardOptionErrors() throws {
        let harness = try PCSCHarness.shared()
        let vcard = try ProgramPaths.built("passkey-vcard")
        let unknown = try harness.run(vcard, ["--applets", "piv,oath", "--state", harness.directory + "/unused.json"])
        #expect(unknown.status != 0)
        #expect(unknown.standardError.contains("unknown applet \"oath\""))
        let policy = try harness.run(vcard, ["--presence", "sometimes", "--state", harness.directory + "/unused.json"])
        #expect(policy.status != 0)
        #expect(policy.standardError.contains("--presence"))
    }
}
