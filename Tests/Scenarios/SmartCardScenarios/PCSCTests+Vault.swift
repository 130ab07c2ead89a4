import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The token vault with a PIV key slot, through the real stack: pcscd, vpcd,
/// `passkey-vcard` set up with `passkey card setup`, the real agent and CLI.
/// Part of the serialized PC/SC suite: these share its pcscd and readers.
extension PCSCTests {
    /// A card set up for the vault (a P-256 key in 9D), and an agent that reaches it.
    private func vaultAgent(_ fixtures: PCSCFixture...) throws -> AgentHarness {
        for fixture in fixtures {
            let setup = try fixture.passkey(["card", "setup", "--reader", fixture.reader, "--pin-stdin", "--yes"], input: "123456\n")
            guard setup.status == 0 else { throw HarnessError("card setup failed: \(setup.standardError)") }
        }
        let harness = try PCSCHarness.shared()
        let agent = try AgentHarness(extraEnvironment: ["PCSCLITE_CSOCK_NAME": harness.socketPath])
        try agent.start()
        return agent
    }

    private func vaultState(_ agent: AgentHarness) throws -> [String: Any] {
        try #require((try agent.connect().call(1, "agent.status").result)?["vault"] as? [String: Any])
    }

    private func document(_ access: String) -> String {
        "{\"access_token\":\"\(access)\",\"token_type\":\"Bearer\",\"expires_in\":3600,\"refresh_token\":\"RT-card-1\","
            + "\"issuer\":\"https://id.example.org\",\"client_id\":\"cli\",\"token_endpoint\":\"https://id.example.org/token\"}"
    }

    @Test("vault acceptance: init with the card, tokens in and out, lock, wrong and right PIN, a fido2 slot, card removal, blocked PIN")
    func vaultWithPIVCard() throws {
        let fixture = try PCSCFixture()
        let agent = try vaultAgent(fixture)
        let created = try agent.passkey(["vault", "init", "--slot", "piv", "--reader", fixture.reader, "--pin-stdin"],
                                        standardInput: "123456\n")
        #expect(created.status == 0, "\(created.standardError)")
        #expect(created.standardOutput.contains("The agent holds it unlocked."))
        #expect(!created.standardOutput.contains("123456") && !created.standardError.contains("123456"))

        let secret = "AT-card-\(UUID().uuidString)"
        let put = try agent.passkey(["token", "put", "work"], standardInput: document(secret))
        #expect(put.status == 0, "\(put.standardError)")
        let got = try agent.passkey(["token", "get", "work"])
        #expect(got.status == 0, "\(got.standardError)")
        #expect(got.standardOutput == secret + "\n")

        // The token is in no file under the XDG directories, nor in any log.
        var files = [agent.process?.standardErrorPath, agent.process?.standardOutputPath, fixture.card.logPath,
                     fixture.harness.pcscdLogPath].compactMap { $0 }
        for directory in ["data", "config", "state", "run"] {
            let root = agent.home + "/" + directory
            files += (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).map { root + "/" + $0 }
        }
        let leaks = files.filter { FileManager.default.contents(atPath: $0)?.range(of: Data(secret.utf8)) != nil }
        #expect(leaks.isEmpty, "the access token is in \(leaks)")
        #expect(files.contains { $0.hasSuffix("/vault/header") })

        let lock = try agent.passkey(["lock"])
        #expect(lock.standardOutput == "Locked.\n")
        let locked = try agent.passkey(["token", "get", "work"])
        #expect(locked.status == 7)
        #expect(locked.standardOutput.isEmpty)
        #expect(locked.standardError.contains("the vault is locked"))

        let wrong = try agent.passkey(["unlock", "--pin-stdin"], standardInput: "999999\n")
        #expect(wrong.status == 6)
        #expect(wrong.standardError.contains("wrong PIN: 2 tries left"), "\(wrong.standardError)")
        #expect(try vaultState(agent)["locked"] as? Bool == true)
        let right = try agent.passkey(["unlock", "--pin-stdin"], standardInput: "123456\n")
        #expect(right.status == 0, "\(right.standardError)")
        #expect(try agent.passkey(["token", "get", "work"]).standardOutput == secret + "\n")

        // A second slot: the software authenticator opens the same vault.
        let added = try agent.passkey(["vault", "add-slot", "fido2", "--device", "virtual"])
        #expect(added.status == 0, "\(added.standardError)")
        #expect(try agent.passkey(["lock"]).status == 0)
        let byKey = try agent.passkey(["unlock", "--slot", "fido2", "--device", "virtual"])
        #expect(byKey.status == 0, "\(byKey.standardError)")
        #expect(try agent.passkey(["token", "get", "work"]).standardOutput == secret + "\n")
        // Removing a card that did not unlock it changes nothing…
        try fixture.removeCard(kill: true)
        #expect(try vaultState(agent)["locked"] as? Bool == false)
        try fixture.reinsertCard()
        #expect(try agent.passkey(["lock"]).status == 0)

        // …but removing the card that did locks the vault.
        let again = try agent.passkey(["unlock", "--slot", "piv", "--pin-stdin"], standardInput: "123456\n")
        #expect(again.status == 0, "\(again.standardError)")
        #expect(try vaultState(agent)["unlockedWith"] as? Int == 1)
        try fixture.removeCard(kill: true)
        try agent.process?.waitUntil("the agent locks the vault when the card goes") {
            (try? vaultState(agent)["locked"] as? Bool) == true
        }
        let status = try agent.passkey(["vault", "status"])
        #expect(status.standardOutput.contains("the card was removed"), "\(status.standardOutput)")
        #expect(try agent.passkey(["token", "get", "work"]).status == 7)

        // Three wrong PINs block the card; the error names the way out.
        try fixture.reinsertCard()
        for expected in ["wrong PIN: 2 tries left", "wrong PIN: 1 try left", "passkey card pin unblock"] {
            let attempt = try agent.passkey(["unlock", "--slot", "piv", "--pin-stdin"], standardInput: "000000\n")
            #expect(attempt.status == 6)
            #expect(attempt.standardError.contains(expected), "\(attempt.standardError)")
        }
        let blocked = try agent.passkey(["unlock", "--slot", "piv", "--pin-stdin", "--json"], standardInput: "123456\n")
        #expect(blocked.status == 6)
        #expect(blocked.standardOutput.contains("\"kind\" : \"pin_blocked\""))
        #expect(blocked.standardOutput.contains("passkey card pin unblock"))
        // The fido2 slot still opens it.
        #expect(try agent.passkey(["unlock", "--slot", "fido2", "--device", "virtual"]).status == 0)
    }

    @Test("the vault's card is found among several readers; a missing card is named; another card is refused")
    func vaultFindsItsCard() throws {
        let other = try PCSCFixture(slot: 0)
        let enrolled = try PCSCFixture(slot: 1)
        let agent = try vaultAgent(other, enrolled)
        let created = try agent.passkey(["vault", "init", "--slot", "piv", "--reader", enrolled.reader, "--pin-stdin", "--json"],
                                        standardInput: "123456\n")
        #expect(created.status == 0, "\(created.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(created.standardOutput.utf8)) as? [String: Any])
        let slot = try #require((report["slots"] as? [[String: Any]])?.first)
        let serial = try #require(slot["serialNumber"] as? Int)
        #expect(slot["reader"] as? String == enrolled.reader)

        #expect(try agent.passkey(["lock"]).status == 0)
        let found = try agent.passkey(["unlock", "--pin-stdin"], standardInput: "123456\n")
        #expect(found.status == 0, "\(found.standardError)")
        #expect(found.standardOutput.contains("serial \(serial)"))

        // Over the socket, an interactive client is asked for the PIN, and
        // asked again (with the tries left) only after a wrong answer.
        #expect(try agent.passkey(["lock"]).status == 0)
        let client = try agent.connect()
        try client.send(#"{"jsonrpc":"2.0","id":5,"method":"agent.unlock","params":{"slot":"piv","interactive":true}}"# + "\n")
        func nextQuestion() throws -> [String: Any]? {
            while true {
                let message = try client.readJSON(timeout: 30)
                guard message["method"] as? String == "progress" else { return nil }
                if let params = message["params"] as? [String: Any], params["stage"] as? String == "pin" {
                    return params["pin"] as? [String: Any]
                }
            }
        }
        let first = try #require(try nextQuestion())
        #expect(first["what"] as? String == "card PIN")
        #expect(first["triesLeft"] == nil)
        try client.send(#"{"jsonrpc":"2.0","method":"$/pin","params":{"id":5,"pin":"000000"}}"# + "\n")
        let second = try #require(try nextQuestion())
        #expect(second["triesLeft"] as? Int == 2)
        try client.send(#"{"jsonrpc":"2.0","method":"$/pin","params":{"id":5,"pin":"123456"}}"# + "\n")
        let answer = try client.readJSON(timeout: 30)
        #expect((answer.result)?["locked"] as? Bool == false, "\(answer)")

        #expect(try agent.passkey(["lock"]).status == 0)
        let wrongCard = try agent.passkey(["unlock", "--reader", other.reader, "--pin-stdin"], standardInput: "123456\n")
        #expect(wrongCard.status == 3)
        #expect(wrongCard.standardError.contains("is not one of the vault's cards"), "\(wrongCard.standardError)")

        try enrolled.removeCard()
        let missing = try agent.passkey(["unlock", "--pin-stdin"], standardInput: "123456\n")
        #expect(missing.status == 3)
        #expect(missing.standardError.contains("insert the card with serial \(serial)"), "\(missing.standardError)")
        #expect(missing.standardError.contains(enrolled.reader))
    }
}
