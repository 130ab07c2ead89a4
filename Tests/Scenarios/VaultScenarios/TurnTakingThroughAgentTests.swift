import Foundation
import Testing
import TestSupport

/// Requests that wait on no person take turns on their connection: one
/// runs, the others wait behind it (docs/RELIABILITY.md). Shown with a
/// token refresh held at the token endpoint, so "waits behind" is a fact of
/// the protocol, not of timing.
@Suite(.ownThreads) struct TurnTakingThroughAgentTests {
    @Test("a token.get behind a held refresh on its own connection waits its turn; other connections and PIN-or-touch methods do not")
    func machineRequestsTakeTurnsPerConnection() throws {
        let (endpoint, agent) = try Self.agentWithAHeldRefresh()
        defer { endpoint.stop() }
        let pipeliner = try agent.harness.connect()
        // 1 holds the connection's turn (its refresh is held); 2 and 3 wait behind it.
        try pipeliner.send(Self.request(1, "token.get", #"{"account":"expired"}"#)
                           + Self.request(2, "token.get", #"{"account":"fresh"}"#)
                           + Self.request(3, "token.get", #"{"account":"fresh"}"#))

        // A method that may wait for a person starts at once beside them:
        // this one fails its params check, which happens inside the request.
        try pipeliner.send(Self.request(4, "webauthn.get", "{}"))
        let person = try pipeliner.readJSON()
        #expect(person["id"] as? Int == 4, "the first answer is the method that takes no turn: \(person)")
        #expect(person.errorKind == "invalid_params")

        // Another connection is not held up by this one's turn.
        let other = try agent.harness.connect()
        #expect(try other.call(1, "token.get", params: #"{"account":"fresh"}"#).result?["accessToken"] as? String == "FRESH")

        // A request still waiting for its turn is cancelled at once and never runs.
        try pipeliner.send("{\"jsonrpc\":\"2.0\",\"method\":\"$/cancel\",\"params\":{\"id\":2}}\n")
        let cancelled = try pipeliner.readJSON()
        #expect(cancelled["id"] as? Int == 2)
        #expect(cancelled.errorKind == "cancelled")

        // Once the refresh goes through, 1 answers, then 3 gets its turn.
        endpoint.openGate()
        let first = try pipeliner.readJSON(timeout: 30)
        #expect(first["id"] as? Int == 1)
        #expect(first.result?["accessToken"] as? String == "AT-2")
        let third = try pipeliner.readJSON(timeout: 30)
        #expect(third["id"] as? Int == 3)
        #expect(third.result?["accessToken"] as? String == "FRESH")
    }

    @Test("a client that pipelines more than 8 token requests is read no further until one ends: the rest are served later, never refused")
    func pipelinedMachineRequestsPauseReadingInsteadOfRefusals() throws {
        let (endpoint, agent) = try Self.agentWithAHeldRefresh()
        defer { endpoint.stop() }
        let pipeliner = try agent.harness.connect()
        var lines = Self.request(1, "token.get", #"{"account":"expired"}"#)
        for id in 2...40 { lines += Self.request(id, "token.get", #"{"account":"fresh"}"#) }
        // One write: the lines past the eighth arrive in the agent's same read
        // (it holds them) or stay in the kernel (it reads no further).
        try pipeliner.send(lines)

        // While request 1 holds the turn, nothing is answered: no refusal of
        // the lines past the eighth (before this, 32 `too_many_connections`).
        #expect(throws: (any Error).self, "no answer while the refresh is held") { _ = try pipeliner.readJSON(timeout: 2) }

        endpoint.openGate()
        var answered: [Int: String] = [:]
        for _ in 1...40 {
            let answer = try pipeliner.readJSON(timeout: 30)
            let id = try #require(answer["id"] as? Int)
            answered[id] = (answer.result?["accessToken"] as? String) ?? "error: \(answer.errorKind ?? "?")"
        }
        #expect(answered[1] == "AT-2")
        #expect((2...40).allSatisfy { answered[$0] == "FRESH" }, "\(answered.filter { $0.value != "FRESH" })")
    }

    /// An agent with an unlocked vault holding "expired" (its refresh will be
    /// held at the endpoint until `openGate()`) and "fresh" (answered from the vault).
    static func agentWithAHeldRefresh() throws -> (TokenEndpoint, VaultAgent) {
        let endpoint = try TokenEndpoint(refreshToken: "RT-1", expiresIn: 3600)
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        try agent.put("expired", VaultAgent.document(access: "AT-1", refresh: "RT-1", expiresIn: 0, endpoint: endpoint.url))
        try agent.put("fresh", VaultAgent.document(access: "FRESH", refresh: "RF", expiresIn: 3600, endpoint: endpoint.url))
        endpoint.closeGate()
        return (endpoint, agent)
    }

    static func request(_ id: Int, _ method: String, _ params: String) -> String {
        "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"\(method)\",\"params\":\(params)}\n"
    }
}
