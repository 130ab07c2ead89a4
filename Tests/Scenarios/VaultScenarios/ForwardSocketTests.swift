import AgentCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// `forward.open`'s restricted socket on the real agent (issue 29): only the
/// allowed methods, only the listed accounts, each token confirmed at the
/// agent's desktop (a scripted pinentry), closed by `forward.close` or its TTL.
// Serialized: the scripted pinentry of one test must not be written while another forks the agent (ETXTBSY).
@Suite(.ownThreads, .serialized) struct ForwardSocketTests {
    /// An agent with a vault holding `work` and `home`, and a forward opened with `params`.
    static func agentWithForward(person: ScriptedPinentry.Answer, params: String) throws -> (VaultAgent, [String: Any]) {
        let agent = try VaultAgent(person: person)
        try agent.start()
        try agent.initializeVault()
        let endpoint = "https://127.0.0.1:9/token"  // never called: the tokens are fresh
        try agent.put("work", VaultAgent.document(access: "AT-WORK", refresh: "RT-WORK", expiresIn: 3600, endpoint: endpoint))
        try agent.put("home", VaultAgent.document(access: "AT-HOME", refresh: "RT-HOME", expiresIn: 3600, endpoint: endpoint))
        let opened = try agent.harness.connect().call(1, "forward.open", params: params)
        let info = try #require(opened.result, "\(opened)")
        return (agent, info)
    }

    static func restricted(_ answer: [String: Any]) -> Bool {
        answer.errorKind == "denied" && ((answer["error"] as? [String: Any])?["data"] as? [String: Any])?["errorCode"] as? String == "forward_restricted"
    }

    @Test("every method of the protocol but token.get and agent.status is refused through the forward, and token.get only for its accounts")
    func everyOtherMethodRefused() throws {
        let (agent, info) = try Self.agentWithForward(person: .allow, params: #"{"accounts":["work"],"confirm":"never"}"#)
        let path = try #require(info["path"] as? String)
        #expect(path.hasPrefix(agent.harness.runtimeDirectory + "/passkey-agent/forward-") && path.hasSuffix(".sock"))
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)

        let names = try AgentCore(environment: agent.harness.environment, runningAsAgent: false).methods.methodNames
        #expect(names.count > 30 && names.contains("vault.removeSlot") && names.contains("webauthn.get"))
        let client = try LineClient(path: path)
        var id = 10
        for name in names + ["forward.open", "forward.list", "forward.close"] {
            id += 1
            let answer = try client.call(id, name, params: #"{"account":"work","accounts":["work"],"id":1}"#)
            if name == "token.get" {
                #expect((answer.result?["accessToken"] as? String) == "AT-WORK", "\(answer)")
            } else if name == "agent.status" {
                #expect(answer.result != nil, "\(answer)")
            } else {
                #expect(Self.restricted(answer), "\(name) went through the forward: \(answer)")
            }
        }
        let home = try client.call(100, "token.get", params: #"{"account":"home"}"#)
        #expect(Self.restricted(home) && home.result == nil, "\(home)")
        let message = ((home["error"] as? [String: Any])?["message"] as? String) ?? ""
        #expect(message.contains("forwarding socket"), "the refusal names the restriction: \(message)")
        #expect(agent.pinentry?.confirmations.isEmpty == true, "confirm never asks no one")
        // The agent's own socket still serves everything.
        #expect(try agent.harness.connect().call(1, "token.get", params: #"{"account":"home"}"#).result?["accessToken"] as? String == "AT-HOME")
        let log = TextFile.read(try #require(agent.harness.process).standardErrorPath)
        #expect(log.contains("forwarded request") && log.contains("account=work"), "each forwarded request is logged")
        #expect(agent.filesContaining(["AT-WORK", "AT-HOME"]).isEmpty, "no token in the logs")
    }

    @Test("confirm always: a declined token.get answers cancelled and releases nothing; the person saw the account and the forward")
    func declinedReleasesNothing() throws {
        let (agent, info) = try Self.agentWithForward(person: .deny, params: #"{"accounts":["work"]}"#)
        #expect(info["confirm"] as? String == "always")
        let client = try LineClient(path: try #require(info["path"] as? String))
        let answer = try client.call(1, "token.get", params: #"{"account":"work"}"#)
        #expect(answer.errorKind == "cancelled" && answer.result == nil, "\(answer)")
        let message = ((answer["error"] as? [String: Any])?["message"] as? String) ?? ""
        #expect(message.contains("declined") && message.contains("nothing was released"), "\(message)")
        let asked = try #require(agent.pinentry?.confirmations.first)
        #expect(asked.contains("work") && asked.contains("forwarding socket 1") && asked.contains("does not say which host"), "\(asked)")
    }

    @Test("confirm first: the person allows the first token.get of an account, the next ones go through unasked")
    func confirmFirst() throws {
        let (agent, info) = try Self.agentWithForward(person: .allow, params: #"{"accounts":["work"],"confirm":"first"}"#)
        let client = try LineClient(path: try #require(info["path"] as? String))
        for id in 1...2 {
            let answer = try client.call(id, "token.get", params: #"{"account":"work"}"#)
            #expect(answer.result?["accessToken"] as? String == "AT-WORK", "\(answer)")
        }
        #expect(agent.pinentry?.confirmations.count == 1)
    }

    @Test("forward.close removes the socket and ends access; a TTL closes it by itself; forward.list shows what is open")
    func closeAndExpiry() throws {
        let (agent, info) = try Self.agentWithForward(person: .allow, params: #"{"accounts":["work"],"confirm":"never"}"#)
        let path = try #require(info["path"] as? String)
        let connected = try LineClient(path: path)
        let main = try agent.harness.connect()
        let listed = try #require(try main.call(2, "forward.list").result?["forwards"] as? [[String: Any]])
        #expect(listed.map { $0["path"] as? String } == [path])
        #expect(try main.call(3, "forward.close", params: #"{"id":1}"#).result != nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect((try? LineClient(path: path)) == nil)
        #expect((try? connected.call(1, "token.get", params: #"{"account":"work"}"#))?.result == nil, "open connections close too")
        #expect(try main.call(4, "forward.close", params: #"{"id":1}"#).errorKind == "not_found")

        let short = try #require(try main.call(5, "forward.open", params: #"{"accounts":["work"],"ttlSeconds":1}"#).result)
        let shortPath = try #require(short["path"] as? String)
        #expect(short["expiresAt"] as? Int != nil)
        #expect(FileManager.default.fileExists(atPath: shortPath))
        // Bounded wait for the agent's own timer to remove it.
        let deadline = Date().addingTimeInterval(15)
        while FileManager.default.fileExists(atPath: shortPath), Date() < deadline { usleep(50_000) }
        #expect(!FileManager.default.fileExists(atPath: shortPath), "the TTL closed the forward")
        #expect((try main.call(6, "forward.list").result?["forwards"] as? [Any])?.isEmpty == true)
        // A forward cannot be opened wider than tokens and status.
        #expect(try main.call(7, "forward.open", params: #"{"accounts":["work"],"allow":["vault.removeSlot"]}"#).errorKind == "invalid_params")
        #expect(try main.call(8, "forward.open", params: #"{"accounts":[]}"#).errorKind == "invalid_params")
        // At most 16 open at once.
        for id in 20..<36 { #expect(try main.call(id, "forward.open", params: #"{"accounts":["work"]}"#).result != nil) }
        #expect(try main.call(40, "forward.open", params: #"{"accounts":["work"]}"#).errorKind == "too_many_connections")
    }

    @Test("passkey forward: needs an account, a sane --ttl and a running agent; --list and --close manage what it opened")
    func commandLine() throws {
        let agent = try VaultAgent()
        let noAgent = try agent.passkey(["forward", "--account", "work"])
        #expect(noAgent.status != 0 && noAgent.standardError.contains("needs a running passkey-agent"), "\(noAgent.standardError)")
        try agent.start()
        for bad in [["forward"], ["forward", "--account", "work", "--ttl", "0"], ["forward", "--account", "work", "--ttl", "8w"],
                    ["forward", "--account", "work", "--ttl", "-5m"], ["forward", "--account", "work", "--ttl", "99999999d"],
                    ["forward", "--account", "work", "--confirm", "sometimes"], ["forward", "--list", "--account", "work"]] {
            let refused = try agent.passkey(bad)
            #expect(refused.status != 0 && refused.standardOutput.isEmpty, "\(bad): \(refused.standardOutput)")
        }
        #expect(try agent.passkey(["forward", "--list"]).standardOutput == "No forward is open.\n")
        let opened = try agent.passkey(["forward", "--account", "work", "--ttl", "90m", "--json"])
        #expect(opened.status == 0, "\(opened.standardError)")
        let info = try #require(try JSONSerialization.jsonObject(with: Data(opened.standardOutput.utf8)) as? [String: Any])
        let expires = try #require(info["expiresAt"] as? Int)
        #expect(abs(expires - Int(Date().timeIntervalSince1970) - 5400) < 60, "--ttl 90m is 5400 s")
        #expect(info["allow"] as? [String] == ["token.get", "agent.status"] && info["confirm"] as? String == "always")
        let wider = try agent.passkey(["forward", "--account", "work", "--allow", "token.get,vault.removeSlot"])
        #expect(wider.status != 0 && wider.standardError.contains("cannot serve vault.removeSlot"), "\(wider.standardError)")
        #expect(try agent.passkey(["forward", "--list"]).standardOutput.hasPrefix("forward 1: "))
        #expect(try agent.passkey(["forward", "--close", "1"]).status == 0)
        #expect(try agent.passkey(["forward", "--close", "1"]).status != 0)
        #expect(try agent.passkey(["forward", "--list"]).standardOutput == "No forward is open.\n")
    }
}
