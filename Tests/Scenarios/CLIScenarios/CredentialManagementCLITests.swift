import Foundation
import Testing
import TestSupport

/// `passkey credentials list/rm`, `passkey key info/reset` and `passkey pin
/// change` on the software authenticator, through the real agent (and its
/// in-process twin), as a person or a script runs them.
@Suite(.ownThreads) struct CredentialManagementCLITests {
    static let pin = "246810"

    /// An agent whose software key holds passkeys for alice and bob at
    /// example.org and carol at example.com, and has the PIN `pin`.
    func harnessWithThreePasskeys(startAgent: Bool = true) throws -> AgentHarness {
        let harness = try AgentHarness()
        if startAgent { try harness.start() }
        for (rp, user) in [("example.org", "alice"), ("example.org", "bob"), ("example.com", "carol")] {
            let options = """
                {"challenge":"AAECAwQFBgcICQoLDA0ODw","rp":{"id":"\(rp)","name":"\(rp)"},
                 "user":{"id":"\(Data(user.utf8).base64EncodedString())","name":"\(user)","displayName":"\(user.capitalized)"},
                 "pubKeyCredParams":[{"type":"public-key","alg":-7}],"authenticatorSelection":{"residentKey":"required"}}
                """
            let created = try harness.passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://\(rp)"],
                                              standardInput: options)
            #expect(created.status == 0, "webauthn create for \(user): \(created.standardError)")
        }
        let set = try harness.passkey(["pin", "set", "--device", "virtual", "--pin-stdin"], standardInput: Self.pin + "\n")
        #expect(set.status == 0, "pin set: \(set.standardError)")
        return harness
    }

    func list(_ harness: AgentHarness, _ extra: [String] = []) throws -> [[String: Any]] {
        let listed = try harness.passkey(["credentials", "list", "--device", "virtual", "--pin-stdin", "--json"] + extra,
                                         standardInput: Self.pin + "\n")
        #expect(listed.status == 0, "credentials list: \(listed.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [String: Any])
        return try #require(object["credentials"] as? [[String: Any]])
    }

    @Test("list all and by site, rm one, list again; the text form shows the sites, users and counts")
    func listRemoveList() throws {
        let harness = try harnessWithThreePasskeys()
        let all = try list(harness)
        #expect(Set(all.compactMap { $0["userName"] as? String }) == ["alice", "bob", "carol"])
        let bob = try #require(all.first { $0["userName"] as? String == "bob" })
        #expect(bob["rpId"] as? String == "example.org" && bob["userDisplayName"] as? String == "Bob")
        #expect(bob["largeBlobKey"] as? Bool == false)
        #expect(bob["credProtect"] as? String == "userVerificationOptional", "\(bob)")
        let bobId = try #require(bob["credentialId"] as? String)

        let org = try list(harness, ["--rp", "example.org"])
        #expect(Set(org.compactMap { $0["userName"] as? String }) == ["alice", "bob"])

        let text = try harness.passkey(["credentials", "list", "--device", "virtual", "--pin-stdin"], standardInput: Self.pin + "\n")
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput.contains("example.com") && text.standardOutput.contains("carol") && text.standardOutput.contains(bobId),
                "\(text.standardOutput)")
        #expect(text.standardOutput.contains("Discoverable credentials: 3 on the key, room for 97 more."), "\(text.standardOutput)")

        // After "--": a base64url id may begin with "-" (1 in 64), which a user
        // copying it from the list must be able to pass.
        let removed = try harness.passkey(["credentials", "rm", "--yes", "--device", "virtual", "--pin-stdin", "--", bobId],
                                          standardInput: Self.pin + "\n")
        #expect(removed.status == 0, "\(removed.standardError)")
        #expect(removed.standardOutput == "Deleted the passkey with credential id \(bobId).\n", "\(removed.standardOutput)")
        let after = try list(harness)
        #expect(Set(after.compactMap { $0["userName"] as? String }) == ["alice", "carol"])
        #expect(try list(harness, ["--rp", "example.com"]).count == 1)
    }

    @Test("a wrong PIN says how many tries are left")
    func wrongPIN() throws {
        let harness = try harnessWithThreePasskeys()
        let wrong = try harness.passkey(["credentials", "list", "--device", "virtual", "--pin-stdin"], standardInput: "000000\n")
        #expect(wrong.status == 6, "\(wrong.standardError)")
        #expect(wrong.standardError == "passkey: wrong PIN: 7 tries left before the key locks\n", "\(wrong.standardError)")
        let json = try harness.passkey(["credentials", "list", "--device", "virtual", "--pin-stdin", "--json"], standardInput: "000000\n")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["kind"] as? String == "pin_invalid" && error["triesLeft"] as? Int == 6, "\(error)")
    }

    @Test("rm without --yes off a terminal is a usage error and deletes nothing; an unknown id is named")
    func removeNeedsConsent() throws {
        let harness = try harnessWithThreePasskeys()
        let id = try #require(try list(harness).first?["credentialId"] as? String)
        let refused = try harness.passkey(["credentials", "rm", "--device", "virtual", "--pin-stdin", "--", id],
                                          standardInput: Self.pin + "\n")
        #expect(refused.status == 64, "\(refused.standardError)")
        #expect(refused.standardError.contains("pass --yes"), "\(refused.standardError)")
        #expect(try list(harness).count == 3, "nothing was deleted")

        let unknown = "AAAAAAAAAAAAAAAAAAAAAA"
        let missing = try harness.passkey(["credentials", "rm", unknown, "--yes", "--device", "virtual", "--pin-stdin"],
                                          standardInput: Self.pin + "\n")
        #expect(missing.status == 10, "\(missing.standardError)")
        #expect(missing.standardError == "passkey: no passkey with credential id \(unknown) is on this security key\n",
                "\(missing.standardError)")
        let malformed = try harness.passkey(["credentials", "rm", "not base64url!", "--yes", "--device", "virtual", "--pin-stdin"],
                                            standardInput: Self.pin + "\n")
        #expect(malformed.status == 11, "\(malformed.standardError)")
        #expect(try list(harness).count == 3)
    }

    @Test("key info shows the AAGUID and GetInfo, with and without an agent", arguments: [true, false])
    func keyInfo(throughAgent: Bool) throws {
        let harness = try AgentHarness()
        if throughAgent { try harness.start() }
        let noAgent = throughAgent ? [] : ["--no-agent"]
        let info = try harness.passkey(["key", "info", "--device", "virtual"] + noAgent)
        #expect(info.status == 0, "\(info.standardError)")
        #expect(info.standardOutput.contains("AAGUID:") && info.standardOutput.contains("6f4d2a1e-9c3b-4e57-8a60-2b7d1c5e9f03"),
                "\(info.standardOutput)")
        #expect(info.standardOutput.contains("FIDO_2_1") && info.standardOutput.contains("credProtect"), "\(info.standardOutput)")
        let json = try harness.passkey(["key", "info", "--device", "virtual", "--json"] + noAgent)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["aaguid"] as? String == "6f4d2a1e9c3b4e578a602b7d1c5e9f03" && object["software"] as? Bool == true)
        #expect(!FileManager.default.fileExists(atPath: harness.home + "/data/passkey-agent/virtual-authenticator.json"),
                "looking at the software key does not create it")
    }

    @Test("pin change through the agent: a wrong current PIN says the tries left, the new PIN then works")
    func pinChange() throws {
        let harness = try harnessWithThreePasskeys()
        let wrong = try harness.passkey(["pin", "change", "--device", "virtual", "--pin-stdin"], standardInput: "999999\n135790\n")
        #expect(wrong.status == 6 && wrong.standardError.contains("7 tries left"), "\(wrong.standardError)")
        let changed = try harness.passkey(["pin", "change", "--device", "virtual", "--pin-stdin"],
                                          standardInput: Self.pin + "\n135790\n")
        #expect(changed.status == 0, "\(changed.standardError)")
        let listed = try harness.passkey(["credentials", "list", "--device", "virtual", "--pin-stdin", "--json"],
                                         standardInput: "135790\n")
        #expect(listed.status == 0, "\(listed.standardError)")
    }

    @Test("key reset: refused off a terminal without --yes; right after power-up it wipes the key; later it says to re-plug")
    func keyReset() throws {
        let harness = try harnessWithThreePasskeys()
        let refused = try harness.passkey(["key", "reset", "--device", "virtual"])
        #expect(refused.status == 64 && refused.standardError.contains("pass --yes"), "\(refused.standardError)")
        #expect(try list(harness).count == 3)

        // The agent powered the software key up at the first request above; wait out CTAP's 10 s.
        Thread.sleep(forTimeInterval: 11)
        let late = try harness.passkey(["key", "reset", "--yes", "--device", "virtual"])
        #expect(late.status == 4, "\(late.standardError)")
        #expect(late.standardError.contains("reset is only allowed within 10 seconds"), "\(late.standardError)")
        #expect(try list(harness).count == 3, "nothing was deleted")

        // Without an agent the command powers the key up itself: within the window.
        _ = harness.process?.stop()
        let reset = try harness.passkey(["key", "reset", "--yes", "--device", "virtual", "--no-agent"])
        #expect(reset.status == 0, "\(reset.standardError)")
        #expect(reset.standardOutput == "The key virtual was reset: it holds no passkeys and no PIN.\n", "\(reset.standardOutput)")
        let info = try harness.passkey(["key", "info", "--device", "virtual", "--no-agent", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(info.standardOutput.utf8)) as? [String: Any])
        #expect(object["pinSet"] as? Bool == false, "\(info.standardOutput)")
        let empty = try harness.passkey(["webauthn", "get", "--device", "virtual", "--origin", "https://example.org", "--no-agent"],
                                        standardInput: #"{"challenge":"AAECAwQFBgcICQoLDA0ODw","rpId":"example.org"}"#)
        #expect(empty.status == 10, "no passkey is left for example.org: \(empty.standardError)")
    }
}
