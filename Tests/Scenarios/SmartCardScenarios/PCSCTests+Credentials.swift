import Foundation
import Testing
import TestSupport

/// Credential management and reset on a FIDO2 key on a PC/SC reader (the
/// virtual card's FIDO2 applet, through pcscd, vpcd and the real agent): the
/// same verbs as on USB, with nothing NFC-specific above the FIDO layer.
/// Part of the serialized PC/SC suite.
extension PCSCTests {
    @Test("credentials list/rm, key info and key reset (after putting it back) on a key on a PC/SC reader, through the agent")
    func credentialsOnAKeyOnAReader() throws {
        let fixture = try PCSCFixture()
        let agent = try AgentHarness(extraEnvironment: ["PCSCLITE_CSOCK_NAME": try PCSCHarness.shared().socketPath])
        try agent.start()
        let device = "pcsc:" + fixture.reader
        let pin = "24681357"

        for (rp, user) in [("example.org", "alice"), ("example.com", "carol")] {
            let options = """
                {"challenge":"AAECAwQFBgcICQoLDA0ODw","rp":{"id":"\(rp)","name":"\(rp)"},
                 "user":{"id":"\(Data(user.utf8).base64EncodedString())","name":"\(user)","displayName":"\(user.capitalized)"},
                 "pubKeyCredParams":[{"type":"public-key","alg":-7}],"authenticatorSelection":{"residentKey":"required"}}
                """
            let created = try agent.passkey(["webauthn", "create", "--device", device, "--origin", "https://\(rp)"],
                                            standardInput: options)
            #expect(created.status == 0, "webauthn create for \(user): \(created.standardError)")
        }
        let set = try agent.passkey(["pin", "set", "--device", device, "--pin-stdin"], standardInput: pin + "\n")
        #expect(set.status == 0, "\(set.standardError)")

        func list(_ extra: [String] = []) throws -> [[String: Any]] {
            let listed = try agent.passkey(["credentials", "list", "--device", device, "--pin-stdin", "--json"] + extra,
                                           standardInput: pin + "\n")
            #expect(listed.status == 0, "\(listed.standardError)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [String: Any])
            return try #require(object["credentials"] as? [[String: Any]], "\(listed.standardOutput)")
        }
        let all = try list()
        #expect(Set(all.compactMap { $0["rpId"] as? String }) == ["example.org", "example.com"], "\(all)")
        let carol = try #require(try list(["--rp", "example.com"]).first)
        #expect(carol["userName"] as? String == "carol" && carol["userDisplayName"] as? String == "Carol", "\(carol)")
        let carolId = try #require(carol["credentialId"] as? String)
        // After "--": a base64url id may begin with "-".
        let removed = try agent.passkey(["credentials", "rm", "--yes", "--device", device, "--pin-stdin", "--", carolId],
                                        standardInput: pin + "\n")
        #expect(removed.status == 0 && removed.standardOutput == "Deleted the passkey with credential id \(carolId).\n",
                "\(removed.standardOutput)\(removed.standardError)")
        #expect(try list().compactMap { $0["userName"] as? String } == ["alice"])

        let info = try agent.passkey(["key", "info", "--device", device])
        #expect(info.status == 0, "\(info.standardError)")
        #expect(info.standardOutput.hasPrefix("\(device)  ") && info.standardOutput.contains("[nfc]"), "\(info.standardOutput)")
        #expect(info.standardOutput.contains("6f4d2a1e-9c3b-4e57-8a60-2b7d1c5e9f03") && info.standardOutput.contains("nfc"),
                "\(info.standardOutput)")

        // Taken off the reader and put back: a new power-up, and the reset goes through. (A reset
        // refused in NFC's words is FIDOTests' to show: pcscd powers and resets the card on its
        // own, and vpcd passes each on as a power cycle, so the window here opens at times a
        // test cannot choose.)
        try fixture.removeCard()
        try fixture.reinsertCard()
        let reset = try agent.passkey(["key", "reset", "--yes", "--device", device])
        #expect(reset.status == 0, "\(reset.standardError)")
        let after = try agent.passkey(["credentials", "list", "--device", device])
        #expect(after.status == 6 && after.standardError.contains("no PIN yet"), "the PIN is gone: \(after.standardError)")
        let signIn = try agent.passkey(["webauthn", "get", "--device", device, "--origin", "https://example.org"],
                                       standardInput: #"{"challenge":"AAECAwQFBgcICQoLDA0ODw","rpId":"example.org"}"#)
        #expect(signIn.status == 10, "alice's passkey is gone: \(signIn.standardError)")
    }
}
