import Foundation
import Testing
import TestSupport

/// A `fido2` slot on a key with a fingerprint reader and a PIN: when the key
/// does not recognise the finger, `agent.unlock` asks for the key's PIN, as
/// the ceremonies do (docs/PROTOCOL.md, the `pin` question) — one PIN loop for
/// both. The software authenticator answers through libfido2, in the agent.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct FingerprintFallbackThroughAgentTests {
    @Test("agent.unlock of a fido2 slot falls back to the key's PIN when the fingerprint is not recognised")
    func unlockFallsBackToThePIN() throws {
        // The agent's key refuses every finger. The PIN and the slot are made
        // before it starts, in-process (`--no-agent`), by a finger the key accepts.
        let agent = try VaultAgent(extraEnvironment: ["PASSKEY_VIRTUAL_VERIFICATION": "deny"])
        let acceptedFinger = ["PASSKEY_VIRTUAL_VERIFICATION": "approve"]
        let set = try agent.harness.passkey(["pin", "set", "--device", "virtual", "--pin-stdin", "--no-agent"],
                                            standardInput: "246810\n", extraEnvironment: acceptedFinger)
        try VaultAgent.require(set, "pin set")
        let created = try agent.harness.passkey(["vault", "init", "--slot", "fido2", "--device", "virtual", "--no-agent"],
                                                extraEnvironment: acceptedFinger)
        try VaultAgent.require(created, "vault init")
        try agent.start()
        #expect(try agent.isLocked)

        let client = try agent.harness.connect()
        let unlock = #"{"slot":"fido2","device":{"device":"virtual"}"#
        // A client that cannot answer is told the PIN is needed, not that the finger failed.
        let refused = try client.call(1, "agent.unlock", params: unlock + "}", timeout: 30)
        #expect(refused.errorKind == "pin_required", "\(refused)")
        #expect(try agent.isLocked)

        // One that can is asked for the PIN; a wrong one is asked again with the tries left.
        try client.send(#"{"jsonrpc":"2.0","id":2,"method":"agent.unlock","params":"# + unlock + #","interactive":true}}"# + "\n")
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
        #expect(first["what"] as? String == "security key PIN")
        #expect(first["triesLeft"] == nil)
        try client.send(#"{"jsonrpc":"2.0","method":"$/pin","params":{"id":2,"pin":"111111"}}"# + "\n")
        let second = try #require(try nextQuestion())
        #expect(second["triesLeft"] as? Int == 7)
        try client.send(#"{"jsonrpc":"2.0","method":"$/pin","params":{"id":2,"pin":"246810"}}"# + "\n")
        var answer = try client.readJSON(timeout: 30)
        while answer["method"] as? String == "progress" { answer = try client.readJSON(timeout: 30) }   // the touch
        #expect(answer.result?["locked"] as? Bool == false, "\(answer)")
        #expect(try agent.isLocked == false)
    }
}
