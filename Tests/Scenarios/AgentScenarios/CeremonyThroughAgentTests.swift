import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Ceremonies through the agent: the same results as in-process, progress
/// notifications, and cancellation by `$/cancel` or by hanging up.
@Suite(.ownThreads) struct CeremonyThroughAgentTests {
    @Test func createAndGetThroughTheAgentMatchInProcess() throws {
        let harness = try AgentHarness()
        try harness.start()
        let optionsFile = harness.home + "/create.json"
        try WebAuthnFixtures.creationOptions().write(toFile: optionsFile, atomically: true, encoding: .utf8)
        var results: [[String: Any]] = []
        for extra in [[], ["--no-agent"]] {
            let state = harness.home + "/va-\(extra.count).json"
            let created = try harness.passkey(["webauthn", "create", "--device", "virtual", "--virtual-state", state,
                                               "--origin", "https://example.org", "--options", optionsFile] + extra)
            #expect(created.status == 0, "\(created.standardError)")
            let registration = try JSONSerialization.jsonObject(with: Data(created.standardOutput.utf8)) as? [String: Any]
            let response = try #require(registration?["response"] as? [String: Any])
            #expect(response["attestationObject"] is String)
            #expect((registration?["clientExtensionResults"] as? [String: Any]).flatMap { $0["credProps"] as? [String: Any] }?["rk"] as? Bool == true)

            let requestFile = harness.home + "/get.json"
            try WebAuthnFixtures.requestOptions().write(toFile: requestFile, atomically: true, encoding: .utf8)
            let got = try harness.passkey(["webauthn", "get", "--device", "virtual", "--virtual-state", state,
                                           "--origin", "https://example.org", "--options", requestFile] + extra)
            #expect(got.status == 0, "\(got.standardError)")
            let assertion = try #require(try JSONSerialization.jsonObject(with: Data(got.standardOutput.utf8)) as? [String: Any])
            #expect(assertion["id"] as? String == registration?["id"] as? String)
            results.append(assertion)
        }
        // Same shape either way.
        #expect(Set(results[0].keys) == Set(results[1].keys))
        let agentLog = harness.process?.standardError ?? ""
        #expect(agentLog.contains("webauthn.create"), "the first run went through the agent")
        #expect(agentLog.components(separatedBy: "webauthn.create").count == 2, "the --no-agent run did not")
    }

    @Test func statusThroughTheAgentAndInProcess() throws {
        let harness = try AgentHarness()
        try harness.start()
        let viaAgent = try harness.passkey(["status"])
        #expect(viaAgent.status == 0)
        #expect(viaAgent.standardOutput.contains("agent: running"))
        let inProcess = try harness.passkey(["status", "--no-agent"])
        #expect(inProcess.status == 0)
        #expect(inProcess.standardOutput.contains("agent: not running"))
    }

    /// The simulated user never touches the key nor shows a finger.
    static let nobodyTouches = ["PASSKEY_VIRTUAL_PRESENCE": "timeout", "PASSKEY_VIRTUAL_VERIFICATION": "timeout"]

    /// A `webauthn.get` waiting for a touch that never comes.
    private func waitingRequest(_ harness: AgentHarness) throws -> LineClient {
        let state = harness.home + "/va.json"
        let optionsFile = harness.home + "/create.json"
        try WebAuthnFixtures.creationOptions().write(toFile: optionsFile, atomically: true, encoding: .utf8)
        let created = try harness.passkey(["webauthn", "create", "--device", "virtual", "--virtual-state", state,
                                           "--origin", "https://example.org", "--options", optionsFile, "--no-agent"],
                                          extraEnvironment: ["PASSKEY_VIRTUAL_PRESENCE": "approve",
                                                             "PASSKEY_VIRTUAL_VERIFICATION": "approve"])
        #expect(created.status == 0, "\(created.standardError)")
        let client = try harness.connect()
        let params = "{\"options\":\(WebAuthnFixtures.requestOptions()),\"origin\":\"https://example.org\",\"device\":{\"device\":\"virtual\",\"virtualState\":\"\(state)\"}}"
        try client.send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"webauthn.get\",\"params\":\(params)}\n")
        var stages: [String] = []
        while !stages.contains("touch") {
            let message = try client.readJSON(timeout: 10)
            if let stage = (message["params"] as? [String: Any])?["stage"] as? String { stages.append(stage) }
            else { Issue.record("unexpected answer while waiting: \(message)"); break }
        }
        return client
    }

    @Test func cancelStopsAWaitingRequestWithinASecond() throws {
        let harness = try AgentHarness(extraEnvironment: Self.nobodyTouches)
        try harness.start()
        let client = try waitingRequest(harness)
        // Quick calls stay responsive while the ceremony waits.
        let other = try harness.connect()
        let status = try #require(try other.call(1, "agent.status").result)
        #expect(status["pendingRequests"] as? Int == 1)

        let cancelledAt = Date()
        try client.send("{\"jsonrpc\":\"2.0\",\"method\":\"$/cancel\",\"params\":{\"id\":7}}\n")
        var answer: [String: Any] = [:]
        repeat { answer = try client.readJSON(timeout: 5) } while answer["method"] != nil
        #expect(answer["id"] as? Int == 7)
        #expect(answer.errorKind == "cancelled")
        #expect(Date().timeIntervalSince(cancelledAt) < 1.0)
        // The device is free again.
        #expect(try other.call(2, "agent.status").result?["pendingRequests"] as? Int == 0)
    }

    /// `--request-timeout`: a request still waiting at its limit is stopped
    /// and answers `timeout` (a timer on the event loop cancels it).
    @Test func aRequestPastItsTimeLimitAnswersTimeout() throws {
        let harness = try AgentHarness(extraEnvironment: Self.nobodyTouches)
        try harness.start(arguments: ["--request-timeout", "2"])
        let startedAt = Date()
        let client = try waitingRequest(harness)
        var answer: [String: Any] = [:]
        repeat { answer = try client.readJSON(timeout: 10) } while answer["method"] != nil
        #expect(answer["id"] as? Int == 7)
        #expect(answer.errorKind == "timeout", "\(answer)")
        #expect((answer["error"] as? [String: Any])?["message"] as? String == "the request took longer than 2 s and was stopped")
        #expect(Date().timeIntervalSince(startedAt) < 8)
        let other = try harness.connect()
        #expect(try other.call(1, "agent.status").result?["pendingRequests"] as? Int == 0)
    }

    @Test func hangingUpCancelsAWaitingRequest() throws {
        let harness = try AgentHarness(extraEnvironment: Self.nobodyTouches)
        let agent = try harness.start()
        var client: LineClient? = try waitingRequest(harness)
        _ = client
        let hungUpAt = Date()
        client = nil
        let other = try harness.connect()
        try agent.waitUntil("the request is cancelled", timeout: 5) {
            (try? other.call(Int.random(in: 1...1_000_000), "agent.status").result?["pendingRequests"] as? Int) == 0
        }
        #expect(Date().timeIntervalSince(hungUpAt) < 1.0)
        try agent.waitUntil("the agent logs the cancellation", timeout: 5) { agent.standardError.contains("cancelled") }
    }
}
