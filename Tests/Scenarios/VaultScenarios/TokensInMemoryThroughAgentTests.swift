import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 27 through the real agent and `passkey`: `token get` of a stored
/// token is answered from the entries the unlocked vault keeps in memory,
/// yet a change to the entry's file by anyone is seen at once, a lock ends
/// it, and a `token.get` pipelined after a `token.put` sees the put.
@Suite(.ownThreads) struct TokensInMemoryThroughAgentTests {
    static func document(_ access: String) -> String {
        VaultAgent.document(access: access, refresh: "r", expiresIn: 86_400, endpoint: "https://id.example.org/token")
    }

    func tokenGet(_ agent: VaultAgent) throws -> String {
        let got = try agent.passkey(["token", "get", "work"])
        #expect(got.status == 0, "\(got.standardError)")
        return got.standardOutput.trimmingCharacters(in: .newlines)
    }

    @Test("the entry's file changed behind the agent (rewritten in place, or replaced): the next token get reads it")
    func anOutsideChangeIsSeen() throws {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        try agent.put("work", Self.document("first-token"))
        #expect(try tokenGet(agent) == "first-token")
        let entries = agent.harness.home + "/data/passkey-agent/vault/entries"
        let names = try FileManager.default.contentsOfDirectory(atPath: entries)
        try #require(names.count == 1)
        let entry = entries + "/" + names[0]
        let first = try Data(contentsOf: URL(fileURLWithPath: entry))

        try agent.put("work", Self.document("second-token"))
        #expect(try tokenGet(agent) == "second-token")
        #expect(try tokenGet(agent) == "second-token", "again, from memory")
        // An older copy written back over the file, in place (same inode), as a restore might.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: entry))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: first)
        try handle.close()
        #expect(try tokenGet(agent) == "first-token")
        // And replaced by rename, as every writer here does.
        try agent.put("work", Self.document("third-token"))
        #expect(try tokenGet(agent) == "third-token")
        let aside = entries + "/../first-copy"
        try first.write(to: URL(fileURLWithPath: aside))
        #expect(rename(aside, entry) == 0)
        #expect(try tokenGet(agent) == "first-token")
    }

    @Test("lock: token get is refused, and after an unlock answered again")
    func lockingEndsIt() throws {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        try agent.put("work", Self.document("kept-token"))
        #expect(try tokenGet(agent) == "kept-token")
        #expect(try agent.passkey(["lock"]).status == 0)
        let refused = try agent.harness.connect().call(1, "token.get", params: #"{"account":"work"}"#)
        #expect(refused.errorKind == "locked", "\(refused)")
        try agent.unlock()
        #expect(try tokenGet(agent) == "kept-token")
    }

    @Test("a token.get pipelined after a token.put on one connection answers what the put stored")
    func aPipelinedGetSeesThePut() throws {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        try agent.put("work", Self.document("old-token"))
        #expect(try tokenGet(agent) == "old-token")
        let client = try agent.harness.connect()
        for round in 0..<20 {
            let put = #"{"jsonrpc":"2.0","id":\#(2 * round + 1),"method":"token.put","params":{"account":"work","token":\#(Self.document("new-\(round)"))}}"#
            let get = #"{"jsonrpc":"2.0","id":\#(2 * round + 2),"method":"token.get","params":{"account":"work"}}"#
            try client.send(put + "\n" + get + "\n")
            var answers: [Int: [String: Any]] = [:]
            while answers.count < 2 {
                let message = try client.readJSON()
                if let id = message["id"] as? Int { answers[id] = message }
            }
            let result = answers[2 * round + 2]?["result"] as? [String: Any]
            #expect(result?["accessToken"] as? String == "new-\(round)", "round \(round): \(answers)")
        }
    }

    @Test("the fast path's answer (plain line, read by hand) is the usual path's answer (string id, JSONDecoder)")
    func theFastAnswerIsTheUsualAnswer() throws {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        try agent.put("work", Self.document("a/kept+token"))
        #expect(try tokenGet(agent) == "a/kept+token")
        let client = try agent.harness.connect()
        var results: [[String: Any]] = []
        for id in ["7", #""seven""#] {
            try client.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"token.get","params":{"account":"work","minValid":60}}"# + "\n")
            let message = try client.readJSON()
            results.append(try #require(message["result"] as? [String: Any], "\(message)"))
        }
        #expect(results[0].mapValues { "\($0)" } == results[1].mapValues { "\($0)" }, "\(results)")
        #expect(results[0]["accessToken"] as? String == "a/kept+token" && results[0]["refreshed"] as? Bool == false)
    }
}
