import Foundation
import Testing
import TestSupport

/// `credentials.list`, `credentials.delete` and `key.info` on the socket, as
/// docs/PROTOCOL.md describes them, on a software key with a PIN whose
/// fingerprint reader recognises no finger: credential management then needs
/// the PIN, asked through the same `pin` question as the ceremonies.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct CredentialsThroughAgentTests {
    static let pin = "246810"

    /// An agent whose software key holds alice's passkey for example.org and
    /// has the PIN; both made in-process beforehand, with a finger the key accepts.
    func agentWithOnePasskey() throws -> AgentHarness {
        let harness = try AgentHarness(extraEnvironment: ["PASSKEY_VIRTUAL_VERIFICATION": "deny"])
        let acceptedFinger = ["PASSKEY_VIRTUAL_VERIFICATION": "approve"]
        let options = """
            {"challenge":"AAECAwQFBgcICQoLDA0ODw","rp":{"id":"example.org","name":"Example"},
             "user":{"id":"dXNlci0x","name":"alice","displayName":"Alice"},
             "pubKeyCredParams":[{"type":"public-key","alg":-7}],"authenticatorSelection":{"residentKey":"required"}}
            """
        let created = try harness.passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org", "--no-agent"],
                                          standardInput: options, extraEnvironment: acceptedFinger)
        #expect(created.status == 0, "webauthn create: \(created.standardError)")
        let set = try harness.passkey(["pin", "set", "--device", "virtual", "--pin-stdin", "--no-agent"],
                                      standardInput: Self.pin + "\n", extraEnvironment: acceptedFinger)
        #expect(set.status == 0, "pin set: \(set.standardError)")
        try harness.start()
        return harness
    }

    @Test("credentials.list: pin_required when nothing can ask; the pin question (with tries left) when interactive")
    func listAsksForThePIN() throws {
        let harness = try agentWithOnePasskey()
        let client = try harness.connect()
        let refused = try client.call(1, "credentials.list", params: #"{"device":"virtual"}"#, timeout: 30)
        #expect(refused.errorKind == "pin_required", "\(refused)")

        try client.send(#"{"jsonrpc":"2.0","id":2,"method":"credentials.list","params":{"device":"virtual","interactive":true}}"# + "\n")
        func nextQuestion() throws -> [String: Any]? {
            while true {
                let message = try client.readJSON(timeout: 30)
                guard message["method"] as? String == "progress" else { Issue.record("answered: \(message)"); return nil }
                if let params = message["params"] as? [String: Any], params["stage"] as? String == "pin" {
                    return params["pin"] as? [String: Any]
                }
            }
        }
        let first = try #require(try nextQuestion())
        #expect(first["what"] as? String == "security key PIN" && first["triesLeft"] == nil, "\(first)")
        try client.send(#"{"jsonrpc":"2.0","method":"$/pin","params":{"id":2,"pin":"111111"}}"# + "\n")
        let second = try #require(try nextQuestion())
        #expect(second["triesLeft"] as? Int == 7, "\(second)")
        try client.send(#"{"jsonrpc":"2.0","method":"$/pin","params":{"id":2,"pin":"\#(Self.pin)"}}"# + "\n")
        var answer = try client.readJSON(timeout: 30)
        while answer["method"] != nil { answer = try client.readJSON(timeout: 30) }
        let credentials = try #require(answer.result?["credentials"] as? [[String: Any]], "\(answer)")
        #expect(credentials.count == 1 && credentials.first?["userName"] as? String == "alice", "\(credentials)")
        #expect(credentials.first?["userHandle"] as? String == "dXNlci0x" && credentials.first?["rpName"] as? String == "Example")
        #expect(answer.result?["existing"] as? Int == 1, "\(answer)")
    }

    @Test("credentials.delete by id with the PIN given; an unknown id is not_found, a malformed one invalid_input")
    func deleteByID() throws {
        let harness = try agentWithOnePasskey()
        let client = try harness.connect()
        let pin = #""pin":"\#(Self.pin)""#
        let listed = try client.call(1, "credentials.list", params: #"{"device":"virtual",\#(pin)}"#, timeout: 30)
        let id = try #require((listed.result?["credentials"] as? [[String: Any]])?.first?["credentialId"] as? String, "\(listed)")

        let unknown = try client.call(2, "credentials.delete", params: #"{"device":"virtual","credentialId":"AAAA",\#(pin)}"#, timeout: 30)
        #expect(unknown.errorKind == "not_found", "\(unknown)")
        #expect(((unknown["error"] as? [String: Any])?["message"] as? String)?.contains("AAAA") == true, "\(unknown)")
        let malformed = try client.call(3, "credentials.delete", params: #"{"device":"virtual","credentialId":"a b",\#(pin)}"#, timeout: 30)
        #expect(malformed.errorKind == "invalid_input", "\(malformed)")

        let deleted = try client.call(4, "credentials.delete", params: #"{"device":"virtual","credentialId":"\#(id)",\#(pin)}"#, timeout: 30)
        #expect(deleted.result?["deleted"] as? Bool == true && deleted.result?["credentialId"] as? String == id, "\(deleted)")
        let after = try client.call(5, "credentials.list", params: #"{"device":"virtual",\#(pin)}"#, timeout: 30)
        #expect((after.result?["credentials"] as? [Any])?.isEmpty == true, "\(after)")
        #expect(after.result?["existing"] as? Int == 0, "\(after)")
    }

    @Test("key.info: GetInfo and the retry counters, for any device choice")
    func keyInfo() throws {
        let harness = try agentWithOnePasskey()
        let info = try harness.connect().call(1, "key.info", params: #"{"device":{"device":"virtual"}}"#, timeout: 30)
        let result = try #require(info.result, "\(info)")
        #expect(result["aaguid"] as? String == "6f4d2a1e9c3b4e578a602b7d1c5e9f03")
        #expect(result["pinSet"] as? Bool == true && result["pinRetries"] as? Int == 8, "\(result)")
        #expect((result["versions"] as? [String])?.contains("FIDO_2_1") == true)
        #expect((result["options"] as? [String: Bool])?["credMgmt"] == true)
    }
}
