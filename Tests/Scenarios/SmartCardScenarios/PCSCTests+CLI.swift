import Foundation
import PIV
import Reports
import SmartCard
import Testing
import TestSupport

/// `passkey card …` as a user runs it, and independent PIV clients (OpenSC,
/// yubico-piv-tool) against the card it set up: the acceptance checks.
/// Part of the serialized PC/SC suite: these share its pcscd and slots.
extension PCSCTests {
    static let reader00 = "Virtual PCD 00 00"

    @Test("acceptance: card list shows the PIV card; setup creates 9D; OpenSC and yubico-piv-tool see it; it survives a restart")
    func acceptance() throws {
        let fixture = try PCSCFixture()
        #expect(fixture.reader == Self.reader00)

        let list = try fixture.passkey(["card", "list", "--json"])
        #expect(list.status == 0, "\(list.standardError)")
        let inventory = try JSONDecoder().decode(CardInventoryReport.self, from: Data(list.standardOutput.utf8))
        let listed = try #require(inventory.readers.first { $0.name == Self.reader00 })
        #expect(listed.cardPresent)
        #expect(listed.applets.contains("PIV"))
        #expect(listed.piv?.pinTriesLeft == 3)
        #expect(listed.piv?.keys.isEmpty == true)

        let setup = try fixture.passkey(["card", "setup", "--reader", Self.reader00, "--pin-stdin", "--yes", "--json"],
                                        input: "123456\n")
        #expect(setup.status == 0, "\(setup.standardError)")
        let report = try JSONDecoder().decode(CardSetupReport.self, from: Data(setup.standardOutput.utf8))
        #expect(report.slot == PIVSlot.keyManagement.hex)
        // It said what it would do before doing it.
        #expect(setup.standardError.contains("generate a new P-256 key in slot 9d"))
        #expect(setup.standardError.contains("5FC10B"))
        #expect(!setup.standardError.contains("123456"))

        let keys = try fixture.tool("pkcs15-tool", ["--list-keys"])
        #expect(keys.status == 0, "\(keys.standardError)")
        #expect(keys.standardOutput.contains("KEY MAN key"), "\(keys.standardOutput)")
        #expect(keys.standardOutput.contains("0x9D"))

        let status = try fixture.tool("yubico-piv-tool", ["-r", "Virtual PCD", "-a", "status"])
        #expect(status.status == 0, "\(status.standardError)")
        #expect(status.standardOutput.contains("Slot 9d"), "\(status.standardOutput)")
        #expect(status.standardOutput.contains("CN=passkey-agent key management"))
        #expect(status.standardOutput.contains("PIN tries left:\t3"))

        try fixture.removeCard()
        try fixture.reinsertCard()
        let after = try fixture.passkey(["card", "list", "--json"])
        let again = try JSONDecoder().decode(CardInventoryReport.self, from: Data(after.standardOutput.utf8))
        let key = again.readers.first { $0.name == Self.reader00 }?.piv?.keys.first { $0.slot == PIVSlot.keyManagement.hex }
        #expect(key?.publicKey == report.publicKey)
        #expect(key?.certificateSubject?.contains("passkey-agent") == true)
    }

    @Test("setup never replaces a 9D key without --force, and wants --yes off a terminal")
    func setupSafety() throws {
        let fixture = try PCSCFixture()
        let noYes = try fixture.passkey(["card", "setup", "--reader", fixture.reader, "--pin-stdin"], input: "123456\n")
        #expect(noYes.status == 11)
        #expect(noYes.standardError.contains("--yes"))
        #expect(try fixture.session().keyMetadata(slot: .keyManagement) == nil)

        let first = try fixture.passkey(["card", "setup", "--reader", fixture.reader, "--pin-stdin", "--yes"],
                                        input: "123456\n")
        #expect(first.status == 0, "\(first.standardError)")
        let key = try fixture.session().publicKey(slot: .keyManagement)

        let refused = try fixture.passkey(["card", "setup", "--reader", fixture.reader, "--pin-stdin", "--yes"],
                                          input: "123456\n")
        #expect(refused.status == 10)
        #expect(refused.standardError.contains("already holds a key"))
        #expect(refused.standardError.contains("--force"))
        #expect(try fixture.session().publicKey(slot: .keyManagement) == key)

        let forced = try fixture.passkey(["card", "setup", "--reader", fixture.reader, "--pin-stdin", "--yes", "--force"],
                                         input: "123456\n")
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(try fixture.session().publicKey(slot: .keyManagement) != key)
    }

    @Test("setup with a management key from stdin; a wrong one is refused and nothing changes")
    func setupWithManagementKey() throws {
        let fixture = try PCSCFixture()
        let session = try fixture.session()
        try session.authenticate(with: .default)
        let custom = try PIVManagementKey.random(algorithm: .aes256)
        try session.setManagementKey(custom)

        let wrong = try fixture.passkey(
            ["card", "setup", "--reader", fixture.reader, "--pin-stdin", "--management-key-stdin", "--yes"],
            input: "123456\n" + String(repeating: "ab", count: 32) + "\n")
        #expect(wrong.status != 0)
        #expect(wrong.standardError.contains("rejected the management key"))
        #expect(try fixture.session().keyMetadata(slot: .keyManagement) == nil)

        let right = try fixture.passkey(
            ["card", "setup", "--reader", fixture.reader, "--pin-stdin", "--management-key-stdin", "--yes"],
            input: "123456\n\(custom.hexString)\n")
        #expect(right.status == 0, "\(right.standardError)")
        #expect(try fixture.session().keyMetadata(slot: .keyManagement) != nil)
    }

    @Test("pin change and unblock report tries left in every answer, errors included")
    func pinVerbs() throws {
        let fixture = try PCSCFixture()
        let wrong = try fixture.passkey(["card", "pin", "change", "--reader", fixture.reader, "--pin-stdin"],
                                        input: "000000\n654321\n")
        #expect(wrong.status == 6)
        #expect(wrong.standardError.contains("wrong PIN: 2 tries left"))
        #expect(!wrong.standardError.contains("654321"))

        let wrongJSON = try fixture.passkey(["card", "pin", "change", "--pin-stdin", "--json"], input: "000000\n654321\n")
        #expect(wrongJSON.status == 6)
        let object = try JSONSerialization.jsonObject(with: Data(wrongJSON.standardOutput.utf8)) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "pin_invalid")
        #expect(error?["triesLeft"] as? Int == 1)

        let changed = try fixture.passkey(["card", "pin", "change", "--pin-stdin"], input: "123456\n654321\n")
        #expect(changed.status == 0, "\(changed.standardError)")
        #expect(changed.standardOutput.contains("PIN changed. PIN: 3 tries left, PUK: 3 tries left."))

        for _ in 0..<3 { _ = try fixture.passkey(["card", "pin", "change", "--pin-stdin"], input: "000000\n111111\n") }
        let blocked = try fixture.passkey(["card", "pin", "change", "--pin-stdin"], input: "654321\n111111\n")
        #expect(blocked.status == 6)
        #expect(blocked.standardError.contains("passkey card pin unblock"))

        let badPUK = try fixture.passkey(["card", "pin", "unblock", "--pin-stdin"], input: "00000000\n222222\n")
        #expect(badPUK.standardError.contains("wrong PUK: 2 tries left"))
        let unblocked = try fixture.passkey(["card", "pin", "unblock", "--pin-stdin", "--json"], input: "12345678\n222222\n")
        #expect(unblocked.status == 0, "\(unblocked.standardError)")
        let report = try JSONDecoder().decode(CardPINReport.self, from: Data(unblocked.standardOutput.utf8))
        #expect(report.reader == fixture.reader)
        #expect(report.operation == .unblockPIN)
        #expect(report.pinTriesLeft == 3)
        #expect(report.pukTriesLeft == 3)

        let puk = try fixture.passkey(["card", "pin", "change", "--puk", "--pin-stdin"], input: "12345678\n87654321\n")
        #expect(puk.status == 0, "\(puk.standardError)")
        #expect(puk.standardOutput.contains("PUK changed."))
        let shortPIN = try fixture.passkey(["card", "pin", "change", "--pin-stdin"], input: "222222\n123\n")
        #expect(shortPIN.status == 11)
        #expect(shortPIN.standardError.contains("6 to 8 characters"))
    }

    @Test("the CLI without pcscd says how to start it")
    func cliWithoutPCSCD() throws {
        let harness = try PCSCHarness.shared()
        let result = try harness.run(try ProgramPaths.built("passkey"), ["card", "list"],
                                     extraEnvironment: ["PCSCLITE_CSOCK_NAME": harness.directory + "/nobody-listens"])
        #expect(result.status == 3)
        #expect(result.standardError.contains("pcscd is not running"))
        #expect(result.standardError.contains("systemctl start pcscd.socket"))
    }
}
