import Foundation
import Testing
import TestSupport

/// The rough edges a new user met in the first hour (issue 17), each kept
/// fixed: the CLI takes the device from the vault's slot and from
/// config.toml, looking at the software key does not create it, `token list`
/// agrees with `vault status` when there is no vault, a damaged entry can be
/// removed by its account, and `signin` says who it signed in as.
@Suite(.ownThreads) struct FirstHourTests {
    static let noKeyConnected = "no security key is connected"

    func passkey(_ harness: AgentHarness, _ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try harness.passkey(arguments, standardInput: input)
    }

    /// The software authenticator's entry in `passkey devices --json`, if listed.
    func softwareDevice(_ output: String) -> [String: Any]? {
        let object = try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        return (object?["devices"] as? [[String: Any]])?.first { $0["software"] as? Bool == true }
    }

    func writeConfig(_ harness: AgentHarness, _ text: String) throws {
        let directory = harness.home + "/config/passkey-agent"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try text.write(toFile: directory + "/config.toml", atomically: true, encoding: .utf8)
        chmod(directory + "/config.toml", 0o600)
    }

    @Test("unlock takes the device from the vault's slot: the software key's slot needs no --device")
    func unlockUsesTheSlotsDevice() throws {
        let harness = try AgentHarness()
        try harness.start()
        let created = try passkey(harness, ["vault", "init", "--slot", "fido2", "--device", "virtual"])
        #expect(created.status == 0, "\(created.standardError)")
        #expect(try passkey(harness, ["lock"]).status == 0)
        let unlocked = try passkey(harness, ["unlock"])
        #expect(unlocked.status == 0, "\(unlocked.standardError)")
        #expect(!unlocked.standardError.contains(Self.noKeyConnected))
        #expect(unlocked.standardOutput.contains("Unlocked with slot 1 (fido2"), "\(unlocked.standardOutput)")
        // --slot fido2 alone as well.
        #expect(try passkey(harness, ["lock"]).status == 0)
        let bySlot = try passkey(harness, ["unlock", "--slot", "fido2"])
        #expect(bySlot.status == 0, "\(bySlot.standardError)")
    }

    @Test("[device] default = \"virtual\" in config.toml is the device of every verb that takes one")
    func configuredDefaultDevice() throws {
        let harness = try AgentHarness()
        try writeConfig(harness, "[device]\ndefault = \"virtual\"\n")
        try harness.start()
        let devices = try passkey(harness, ["devices", "--json"])
        #expect(devices.status == 0 && softwareDevice(devices.standardOutput) != nil, "\(devices.standardOutput)")
        let created = try passkey(harness, ["vault", "init", "--slot", "fido2"])
        #expect(created.status == 0, "vault init: \(created.standardError)")
        #expect(try passkey(harness, ["lock"]).status == 0)
        let unlocked = try passkey(harness, ["unlock"])
        #expect(unlocked.status == 0, "unlock: \(unlocked.standardError)")
        let options = """
            {"challenge":"AAECAwQFBgcICQoLDA0ODw","rp":{"id":"example.org","name":"Example"},
             "user":{"id":"dXNlcg","name":"alice","displayName":"Alice"},
             "pubKeyCredParams":[{"type":"public-key","alg":-7}]}
            """
        let registered = try passkey(harness, ["webauthn", "create", "--origin", "https://example.org"], input: options)
        #expect(registered.status == 0, "webauthn create: \(registered.standardError)")
        for result in [created, unlocked, registered] { #expect(!result.standardError.contains(Self.noKeyConnected)) }
    }

    @Test("passkey devices --device virtual shows the software key without creating its state file",
          arguments: [false, true])
    func devicesDoesNotCreateTheSoftwareKey(throughAgent: Bool) throws {
        let harness = try AgentHarness()
        if throughAgent { try harness.start() }
        let state = harness.home + "/data/passkey-agent/virtual-authenticator.json"
        let listed = try passkey(harness, ["devices", "--device", "virtual", "--json"] + (throughAgent ? [] : ["--no-agent"]))
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(softwareDevice(listed.standardOutput)?["aaguid"] as? String == "6f4d2a1e9c3b4e578a602b7d1c5e9f03",
                "the software key's GetInfo is shown: \(listed.standardOutput)")
        #expect(!FileManager.default.fileExists(atPath: state), "devices created \(state)")
        // Using it does create it.
        let pin = try passkey(harness, ["pin", "set", "--device", "virtual", "--pin-stdin"] + (throughAgent ? [] : ["--no-agent"]),
                              input: "246810\n")
        #expect(pin.status == 0, "\(pin.standardError)")
        #expect(FileManager.default.fileExists(atPath: state))
    }

    @Test("with no vault, token list agrees with vault status: an empty list and exit status 0", arguments: [false, true])
    func tokenListWithoutAVault(throughAgent: Bool) throws {
        let harness = try AgentHarness()
        if throughAgent { try harness.start() }
        let noAgent = throughAgent ? [] : ["--no-agent"]
        let status = try passkey(harness, ["vault", "status"] + noAgent)
        #expect(status.status == 0)
        let list = try passkey(harness, ["token", "list"] + noAgent)
        #expect(list.status == 0, "\(list.standardError)")
        #expect(list.standardOutput == "There is no vault yet, so no tokens are stored: `passkey vault init` creates it.\n")
        let json = try passkey(harness, ["token", "list", "--json"] + noAgent)
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["noVault"] as? Bool == true && (object["tokens"] as? [Any])?.isEmpty == true, "\(json.standardOutput)")
    }

    @Test("token rm removes an entry that cannot be decrypted, by its account; token list names its file")
    func removeADamagedEntry() throws {
        let harness = try AgentHarness()
        try harness.start()
        #expect(try passkey(harness, ["vault", "init", "--slot", "fido2", "--device", "virtual"]).status == 0)
        let entries = harness.home + "/data/passkey-agent/vault/entries"
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: entries)) ?? [])
        let document = #"{"access_token":"at","token_type":"Bearer","expires_in":3600,"issuer":"https://id.example.org","client_id":"cli","token_endpoint":"https://id.example.org/token"}"#
        #expect(try passkey(harness, ["token", "put", "broken"], input: document).status == 0)
        let file = try #require(Set(try FileManager.default.contentsOfDirectory(atPath: entries)).subtracting(before).first)
        var bytes = try #require(FileManager.default.contents(atPath: entries + "/" + file))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: entries + "/" + file))

        let listed = try passkey(harness, ["token", "list"])
        #expect(listed.status == 0)
        #expect(listed.standardError.contains(file) && listed.standardError.contains("damaged"), "\(listed.standardError)")
        let removed = try passkey(harness, ["token", "rm", "broken"])
        #expect(removed.status == 0, "\(removed.standardError)")
        let after = try passkey(harness, ["token", "list", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(after.standardOutput.utf8)) as? [String: Any])
        #expect((object["damaged"] as? [Any])?.isEmpty == true, "\(after.standardOutput)")
        #expect(!FileManager.default.fileExists(atPath: entries + "/" + file))
    }

    @Test("signin says which user it signed in as, and warns when the alias asked for is unknown to the server")
    func signInNamesTheUser() async throws {
        let fixture = try PasswordlessCeremonyTests.Fixture()
        let token = try await fixture.registerToken(user: "user-42", alias: "carol@example.org")
        #expect(try fixture.passkey(["register", "--token", token]).status == 0)

        let known = try fixture.passkey(["signin", "--alias", "carol@example.org"])
        #expect(known.status == 0, "\(known.standardError)")
        #expect(known.standardOutput.hasPrefix("verify_") && !known.standardOutput.contains("\n\n"), "only the token on stdout")
        #expect(!known.standardError.contains("warning"), "\(known.standardError)")
        #expect(known.standardError.contains("Signed in as user \"user-42\".") ||
                known.standardError.contains("Signed in with a passkey the server holds for \"carol@example.org\"."),
                "\(known.standardError)")

        let unknown = try fixture.passkey(["signin", "--alias", "mallory@example.org"])
        #expect(unknown.status == 0, "\(unknown.standardError)")
        #expect(unknown.standardError.contains("Signed in as user \"user-42\"."), "\(unknown.standardError)")
        #expect(unknown.standardError.contains("warning: the server knows no passkey for the alias \"mallory@example.org\""),
                "\(unknown.standardError)")
        let verified = try await fixture.backend.verify(token: unknown.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(verified.userId == "user-42", "the warning tells the truth: the token is user-42's")

        let json = try fixture.passkey(["signin", "--alias", "mallory@example.org", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["userId"] as? String == "user-42" && object["offeredCredentials"] as? Int == 0, "\(json.standardOutput)")
    }
}
