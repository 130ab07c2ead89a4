import Foundation
import Testing
import TestSupport

/// The agent and `passkey --no-agent` both using the software authenticator's
/// state file — two real processes. Each takes the file's lock for every
/// change and works on the state as the file has it, so a passkey registered
/// by one survives the other's writes, and the signature counter, which both
/// advance, never goes back.
@Suite(.ownThreads, .timeLimit(.minutes(5))) struct SharedStateFileTests {
    @Test("passkeys registered by the agent and by --no-agent all survive; the counter rises across both")
    func agentAndNoAgentShareTheFile() throws {
        let agent = try VaultAgent()
        try agent.start()
        let state = agent.harness.home + "/data/passkey-agent/virtual-authenticator.json"
        var last = -1

        func run(_ arguments: [String], noAgent: Bool, input: String) throws -> [String: Any] {
            let result = try agent.passkey(arguments + ["--device", "virtual", "--origin", "https://example.org"]
                                           + (noAgent ? ["--no-agent"] : []), input: input)
            #expect(result.status == 0, "\(arguments) \(noAgent ? "--no-agent" : "(agent)"): \(result.standardError)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        }
        /// The signature count in a response's authenticatorData (bytes 33–36, big-endian).
        func signCount(_ response: [String: Any]) throws -> Int {
            let encoded = try #require((response["response"] as? [String: Any])?["authenticatorData"] as? String)
            let bytes = try #require(Self.base64URLDecode(encoded))
            return bytes[33..<37].reduce(0) { $0 << 8 | Int($1) }
        }
        func register(_ user: String, noAgent: Bool) throws -> String {
            let created = try run(["webauthn", "create"], noAgent: noAgent,
                                  input: WebAuthnFixtures.creationOptions(userName: user, userId: WebAuthnFixtures.randomBase64URL(16)))
            return try #require(created["id"] as? String)
        }
        func signIn(_ id: String, noAgent: Bool) throws {
            let got = try run(["webauthn", "get"], noAgent: noAgent, input: WebAuthnFixtures.requestOptions(allow: [id]))
            #expect(got["id"] as? String == id)
            let count = try signCount(got)
            #expect(count > last, "the signature counter went from \(last) to \(count) (\(noAgent ? "--no-agent" : "agent"))")
            last = count
        }

        // The agent loads the state and keeps it in memory; --no-agent writes behind its back.
        let byAgent = try register("agent-user", noAgent: false)
        let byCLI = try register("cli-user", noAgent: true)
        try signIn(byCLI, noAgent: true)
        try signIn(byCLI, noAgent: false)   // the agent sees the CLI's passkey
        let alsoByAgent = try register("agent-user-2", noAgent: false)   // an agent write after the CLI's
        try signIn(byAgent, noAgent: true)
        try signIn(byAgent, noAgent: false)
        try signIn(alsoByAgent, noAgent: true)

        // All three discoverable credentials are in the file, and a fresh process finds each.
        let stored = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: state))) as? [String: Any])
        let ids = Set(((stored["discoverableCredentials"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
            .compactMap { Data(base64Encoded: $0) })
        for id in [byAgent, byCLI, alsoByAgent] {
            #expect(ids.contains(try #require(Self.base64URLDecode(id)).data), "credential \(id) is missing from the state file")
            try signIn(id, noAgent: true)
        }
    }

    static func base64URLDecode(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }
}

private extension Array where Element == UInt8 {
    var data: Data { Data(self) }
}
