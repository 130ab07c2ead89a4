import Foundation
import HTTPTransport
import Passwordless
import SmartCard
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// FIDO2 over PC/SC (a key on an NFC reader) end to end: the real agent and
/// CLI, libpcsclite, the private pcscd, Debian's vpcd and `passkey-vcard`'s
/// FIDO2 applet. Nothing above the FIDO layer knows the key is not on USB.
/// Part of the serialized PC/SC suite: these share its pcscd and readers.
extension PCSCTests {
    private func nfcAgent() throws -> AgentHarness {
        let agent = try AgentHarness(extraEnvironment: ["PCSCLITE_CSOCK_NAME": try PCSCHarness.shared().socketPath])
        try agent.start()
        return agent
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Registers with `webauthn create` on `device` and checks it with py_webauthn; returns the credential id, key and counter.
    private func register(_ agent: AgentHarness, device: String, userId: String) throws -> (id: String, publicKey: String, counter: Int) {
        let options = WebAuthnFixtures.creationOptions(userId: userId)
        try options.write(toFile: agent.home + "/create.json", atomically: true, encoding: .utf8)
        let created = try agent.passkey(["webauthn", "create", "--device", device, "--origin", "https://example.org"],
                                        standardInput: options)
        #expect(created.status == 0, "\(created.standardError)")
        try created.standardOutput.write(toFile: agent.home + "/registration.json", atomically: true, encoding: .utf8)
        let checked = try Interop.run("verify_webauthn.py", ["register", agent.home + "/create.json",
                                                             agent.home + "/registration.json", "https://example.org"],
                                      scratch: agent.home)
        #expect(checked.status == 0, "py_webauthn refused the registration: \(checked.standardError)")
        let verified = try json(checked.standardOutput)
        let response = try json(created.standardOutput)
        #expect(((response["response"] as? [String: Any])?["transports"] as? [String]) == ["nfc"],
                "the key says it is reached over NFC")
        return (try #require(response["id"] as? String), try #require(verified["publicKey"] as? String),
                try #require(verified["signCount"] as? Int))
    }

    /// Signs in with `webauthn get` on `device` and checks it with py_webauthn; returns the new counter.
    private func signIn(_ agent: AgentHarness, device: String, allow: [String], publicKey: String, counter: Int,
                        userVerification: String = "preferred", pin: String? = nil) throws -> [String: Any] {
        let options = WebAuthnFixtures.requestOptions(allow: allow, userVerification: userVerification)
        try options.write(toFile: agent.home + "/get.json", atomically: true, encoding: .utf8)
        var arguments = ["webauthn", "get", "--device", device, "--origin", "https://example.org"]
        var input = options
        if let pin {
            // The options go in a file when stdin carries the PIN.
            arguments += ["--options", agent.home + "/get.json", "--pin-stdin"]
            input = pin + "\n"
        }
        let got = try agent.passkey(arguments, standardInput: input)
        #expect(got.status == 0, "\(got.standardError)")
        try got.standardOutput.write(toFile: agent.home + "/assertion.json", atomically: true, encoding: .utf8)
        let checked = try Interop.run("verify_webauthn.py", ["authenticate", agent.home + "/get.json", agent.home + "/assertion.json",
                                                             "https://example.org", publicKey, String(counter)],
                                      scratch: agent.home)
        #expect(checked.status == 0, "py_webauthn refused the assertion: \(checked.standardError)")
        return try json(checked.standardOutput)
    }

    @Test("a FIDO2 key on a PC/SC reader: listed by devices, webauthn create/get verified by py_webauthn, PIN, the vault's fido2 slot")
    func fido2KeyOnAReader() throws {
        let fixture = try PCSCFixture()
        let agent = try nfcAgent()
        let device = "pcsc:" + fixture.reader

        // `passkey devices` lists it beside the USB keys, with what GetInfo says.
        let listed = try agent.passkey(["devices", "--json"])
        #expect(listed.status == 0, "\(listed.standardError)")
        let devices = try #require(try json(listed.standardOutput)["devices"] as? [[String: Any]])
        let key = try #require(devices.first { $0["path"] as? String == device }, "\(listed.standardOutput)")
        #expect(key["transport"] as? String == "nfc")
        #expect((key["versions"] as? [String])?.contains("FIDO_2_0") == true)
        #expect((key["aaguid"] as? String)?.count == 32)
        #expect((key["options"] as? [String: Bool])?["rk"] == true)
        #expect(key["error"] == nil)
        let text = try agent.passkey(["devices"])
        #expect(text.standardOutput.contains("\(device)  security key on \(fixture.reader)  [nfc]"), "\(text.standardOutput)")

        // Registration and both kinds of sign-in, judged by py_webauthn.
        let userId = WebAuthnFixtures.randomBase64URL(32)
        let credential = try register(agent, device: device, userId: userId)
        var counter = credential.counter
        for allow in [[], [credential.id]] {
            let result = try signIn(agent, device: device, allow: allow, publicKey: credential.publicKey, counter: counter)
            let next = try #require(result["newSignCount"] as? Int)
            #expect(next > counter)
            counter = next
        }

        // A PIN, then a sign-in that requires user verification gets it by the PIN.
        let set = try agent.passkey(["pin", "set", "--device", device, "--pin-stdin"], standardInput: "24681357\n")
        #expect(set.status == 0, "\(set.standardError)")
        let verified = try signIn(agent, device: device, allow: [credential.id], publicKey: credential.publicKey,
                                  counter: counter, userVerification: "required", pin: "24681357")
        #expect(verified["userVerified"] as? Bool == true)
        let changed = try agent.passkey(["pin", "change", "--device", device, "--pin-stdin"], standardInput: "24681357\n13572468\n")
        #expect(changed.status == 0, "\(changed.standardError)")

        // The vault's fido2 slot on the key (hmac-secret over NFC) locks and unlocks the vault.
        let created = try agent.passkey(["vault", "init", "--slot", "fido2", "--device", device, "--pin-stdin"],
                                        standardInput: "13572468\n")
        #expect(created.status == 0, "\(created.standardError)")
        let secret = "AT-nfc-\(UUID().uuidString)"
        let document = "{\"access_token\":\"\(secret)\",\"token_type\":\"Bearer\",\"expires_in\":3600,"
            + "\"issuer\":\"https://id.example.org\",\"client_id\":\"cli\",\"token_endpoint\":\"https://id.example.org/token\"}"
        #expect(try agent.passkey(["token", "put", "work"], standardInput: document).status == 0)
        #expect(try agent.passkey(["lock"]).status == 0)
        #expect(try agent.passkey(["token", "get", "work"]).status == 7, "locked")
        let unlocked = try agent.passkey(["unlock", "--slot", "fido2", "--device", device, "--pin-stdin"], standardInput: "13572468\n")
        #expect(unlocked.status == 0, "\(unlocked.standardError)")
        #expect(try agent.passkey(["token", "get", "work"]).standardOutput == secret + "\n")

        let log = try #require(agent.process).standardError
        #expect(!log.contains("13572468") && !log.contains("24681357"), "no PIN in the agent's log")
    }

    @Test("devices.list answers while another program holds a transaction on the key's card (the busy reader is left out)")
    func listWhileAnotherHoldsTheCard() throws {
        let fixture = try PCSCFixture()
        let agent = try nfcAgent()
        // Another program (OpenSC, a request waiting for a tap) in its transaction:
        // pcsc-lite makes every other connect and transaction wait until it ends.
        let other = try SmartCardContext().connect(reader: fixture.reader)
        _ = try other.beginTransaction()
        defer { other.disconnect() }
        let client = try agent.connect()
        let busy = try client.call(1, "devices.list", timeout: 30)
        let paths = (busy.result?["devices"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
        #expect(paths != nil, "\(busy)")
        #expect(paths?.contains("pcsc:" + fixture.reader) == false, "\(busy)")

        // Once it ends, the key is listed again — after the probe left waiting
        // has finished, which on a loaded machine takes a while: until then the
        // reader is still "being probed" and a list leaves it out at once. So
        // ask until it is listed, for up to 30 s, not a fixed number of times.
        other.endTransaction()
        var listed = false
        var asked = 0
        let deadline = ContinuousClock.now + .seconds(30)
        while !listed && ContinuousClock.now < deadline {
            asked += 1
            let free = try client.call(asked + 1, "devices.list", timeout: 30)
            listed = (free.result?["devices"] as? [[String: Any]])?.contains { $0["path"] as? String == "pcsc:" + fixture.reader } == true
            if !listed { usleep(50_000) }
        }
        #expect(listed, "the key on \(fixture.reader) is listed when its card is free (asked \(asked) times in 30 s)")
    }

    @Test("the key leaves the reader mid-command: device_unavailable within the request, and the agent serves the next one")
    func keyRemovedMidCommand() throws {
        let harness = try PCSCHarness.shared()
        let reader = harness.readerName(slot: 0)
        try PCSCFixture.waitUntilEmpty(reader)
        // The simulated person never touches: the request waits, the card answering 9100 UPNEEDED.
        let card = try harness.startCard(slot: 0, options: ["--presence", "timeout"])
        defer {
            card.stop()
            try? PCSCFixture.waitUntilEmpty(reader)
        }
        _ = try SmartCardContext().waitForCard(in: reader, timeout: PCSCFixture.waitLimit)
        let agent = try nfcAgent()

        let client = try agent.connect()
        let options = WebAuthnFixtures.creationOptions()
        try client.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"webauthn.create\",\"params\":{\"origin\":\"https://example.org\","
                        + "\"device\":\"pcsc:\(reader)\",\"options\":\(options)}}\n")
        // The tap prompt comes from the card's keepalive: the request is in the card.
        var stages: [String] = []
        while !stages.contains("tap") {
            let message = try client.readJSON(timeout: 30)
            guard message["method"] as? String == "progress" else {
                Issue.record("answered before the tap prompt: \(message)")
                return
            }
            if let stage = (message["params"] as? [String: Any])?["stage"] as? String { stages.append(stage) }
        }
        #expect(!stages.contains("touch"), "a key on a reader is tapped")

        card.kill()
        var answer: [String: Any] = [:]
        repeat { answer = try client.readJSON(timeout: 10) } while answer["method"] != nil
        #expect(answer.errorKind == "device_unavailable", "\(answer)")
        let message = ((answer["error"] as? [String: Any])?["message"] as? String) ?? ""
        #expect(message.contains("left the reader"), "\(message)")

        // The agent goes on serving: status, and a ceremony on another device.
        #expect(try client.call(2, "agent.status").result?["protocolVersion"] != nil)
        let other = try agent.passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org"],
                                      standardInput: WebAuthnFixtures.creationOptions())
        #expect(other.status == 0, "\(other.standardError)")
    }
}

/// passwordless.dev's ceremonies with the key on the reader, against the devserver.
extension PCSCTests {
    @Test("passkey register and signin against passkey-devserver with the key on a PC/SC reader; each token verifies")
    func passwordlessOverNFC() async throws {
        let fixture = try PCSCFixture()
        let agent = try AgentHarness(extraEnvironment: ["PCSCLITE_CSOCK_NAME": try PCSCHarness.shared().socketPath])
        try agent.start()
        let server = try DevServerProgram(arguments: ["--listen", "127.0.0.1:0", "--rp-id", "example.org", "--log-level", "error"],
                                          environment: agent.environment, directory: agent.home, name: "devserver")
        defer { server.process.stop() }
        let startup = try #require(try JSONSerialization.jsonObject(with: Data(try server.waitForStartupLine().utf8)) as? [String: Any])
        let apiURL = try #require(startup["apiUrl"] as? String)
        let apiKey = try #require(startup["apiKey"] as? String)
        let backend = PasswordlessBackend(apiURL: apiURL, apiSecret: try #require(startup["apiSecret"] as? String),
                                          transport: HTTPTransport())
        let serverOptions = ["--api-url", apiURL, "--api-key", apiKey, "--rp-id", "example.org", "--origin", "https://example.org",
                       "--device", "pcsc:" + fixture.reader]

        let token = try await backend.registerToken(.init(userId: "user-nfc", username: "nfc@example.org", aliases: ["nfc@example.org"]))
        let registered = try agent.passkey(["register", "--token", token, "--json"] + serverOptions)
        #expect(registered.status == 0, "\(registered.standardError)")
        let registration = try #require(try JSONSerialization.jsonObject(with: Data(registered.standardOutput.utf8)) as? [String: Any])
        #expect(try await backend.verify(token: try #require(registration["token"] as? String)).userId == "user-nfc")

        for way in [["--alias", "nfc@example.org"], ["--discoverable"]] {
            let signedIn = try agent.passkey(["signin"] + way + serverOptions)
            #expect(signedIn.status == 0, "\(way): \(signedIn.standardError)")
            let verified = try await backend.verify(token: signedIn.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(verified.userId == "user-nfc")
        }
    }
}
