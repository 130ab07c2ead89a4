import AgentClient
import AgentProtocol
@testable import AgentServer
import AgentTestSupport
import Foundation
import Harness
import Interaction
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The whole server in this process, on a real Unix socket, called through
/// the real clients: framing and JSON-RPC errors, turn order on one
/// connection, the fast path, the in-flight limit, questions, the connection
/// limit and shutdown. Where a request must be held, a token refresh is held
/// at a loopback token endpoint (Harness's TokenEndpoint) until the test
/// opens its gate, so "waits behind" is a fact of the protocol, not of timing.
/// AgentScenarios and VaultScenarios check the same rules through the program.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct InProcessServerTests {
    @Test("the socket is 0600 in a 0700 directory; agent.status answers through AgentConnection; shutdown ends run() and removes the socket")
    func servesAndStops() async throws {
        let agent = try InProcessAgent()
        #expect(AgentHarness.mode(agent.socketPath) == 0o600)
        #expect(AgentHarness.mode(String(agent.socketPath.dropLast("/agent.sock".count))) == 0o700)
        let connection = try #require(try AgentConnection.connect(path: agent.socketPath))
        let status = try await connection.call(AgentStatusMethod.self, NoParams(), interaction: ScriptedPerson())
        #expect(status.protocolVersion == protocolVersion && !status.version.isEmpty && status.pid == getpid())

        let idle = try agent.connect()
        try await agent.stop()
        #expect(try idle.readLine(timeout: 10) == nil, "open connections are closed")
        #expect(AgentHarness.mode(agent.socketPath) == nil, "the socket file is gone")
        #expect(try AgentConnection.connect(path: agent.socketPath) == nil, "nothing listens any more")
    }

    @Test("a line that is not JSON is parse_error (id null) and the connection stays usable; invalid requests, unknown methods, notifications")
    func malformedLines() async throws {
        try await InProcessAgent.with { agent in
            let client = try agent.connect()
            try client.send("{this is not json\n")
            let parse = try client.readJSON()
            #expect(parse.errorKind == "parse_error" && parse.errorCode == -32700 && parse["id"] is NSNull, "\(parse)")
            #expect(try client.call(2, "agent.status").result?["protocolVersion"] as? Int == 1, "still usable")

            try client.send(#"{"jsonrpc":"1.0","id":5,"method":"agent.status"}"# + "\n")
            let version = try client.readJSON()
            #expect(version.errorKind == "invalid_request" && version["id"] as? Int == 5, "\(version)")
            try client.send("[1,2,3]\n")
            #expect(try client.readJSON().errorKind == "invalid_request")
            try client.send(#"{"jsonrpc":"2.0","id":1.5,"method":"agent.status"}"# + "\n")
            let fraction = try client.readJSON()
            #expect(fraction.errorKind == "invalid_request" && fraction["id"] is NSNull, "\(fraction)")
            try client.send(request(6, "agent.status", "[1]"))
            #expect(try client.readJSON().errorKind == "invalid_request", "params must be an object")

            let unknown = try client.call(7, "no.such.method")
            #expect(unknown.errorKind == "method_not_found" && unknown.errorCode == -32601 && unknown["id"] as? Int == 7, "\(unknown)")
            let control = try client.call(8, "$/no-such-control")
            #expect(control.errorKind == "method_not_found" && control["id"] as? Int == 8, "\(control)")
            let params = try client.call(9, "webauthn.get", params: #"{"origin":42}"#)
            #expect(params.errorKind == "invalid_params" && params.errorCode == -32602, "\(params)")

            // Notifications, empty lines and a \r\n ending: no answer to the first two, the request after them answered.
            try client.send(#"{"jsonrpc":"2.0","method":"agent.status"}"# + "\n\n\r\n" + #"{"jsonrpc":"2.0","method":"$/cancel","params":{"id":99}}"# + "\n")
            try client.send(#"{"jsonrpc":"2.0","id":10,"method":"agent.status"}"# + "\r\n")
            #expect(try client.readJSON()["id"] as? Int == 10, "the next line read is the answer to 10")
        }
    }

    @Test("a line over 1 MiB gets one request_too_large line (id null), then the connection closes; other clients are served")
    func overLongLine() async throws {
        try await InProcessAgent.with { agent in
            let client = try agent.connect()
            let other = try agent.connect()
            let huge = #"{"jsonrpc":"2.0","id":1,"method":"agent.status","params":{"x":""# + String(repeating: "a", count: 1 << 20) + "\"}}\n"
            try? client.send(huge)  // the agent may close before it has read all of it
            let refused = try client.readJSON()
            #expect(refused.errorKind == "request_too_large" && refused.errorCode == -32600 && refused["id"] is NSNull, "\(refused)")
            #expect(try client.readLine(timeout: 10) == nil, "closed after the error")
            #expect(try other.call(1, "agent.status").result != nil)
        }
    }

    /// An agent with an unlocked vault holding "expired" (its refresh is held
    /// at the endpoint until `openGate()`) and "fresh" (answered from memory).
    /// `keyPIN`: the software key gets this PIN first, and its fingerprint
    /// reader recognises no finger, so what needs the key asks for the PIN.
    static func withHeldRefresh(limits: AgentServer.Limits = AgentServer.Limits(), keyPIN: String? = nil,
                                _ body: (InProcessAgent, TokenEndpoint) async throws -> Void) async throws {
        let endpoint = try TokenEndpoint(refreshToken: "RT-1", expiresIn: 3600)
        defer { endpoint.stop() }
        let environment = keyPIN == nil ? [:] : ["PASSKEY_VIRTUAL_VERIFICATION": "deny"]
        try await InProcessAgent.with(limits: limits, extraEnvironment: environment) { agent in
            if let keyPIN {
                _ = try await agent.core.methods.call(PINSetMethod.self, .init(device: DeviceChoice(device: "virtual"), newPin: keyPIN),
                                                      interaction: ScriptedPerson())
            }
            try await agent.initializeVault(pin: keyPIN)
            try await agent.put("expired", access: "AT-1", refresh: "RT-1", expiresIn: 0, endpoint: endpoint.url)
            try await agent.put("fresh", access: "FRESH", refresh: "RF", expiresIn: 3600, endpoint: endpoint.url)
            #expect(try await agent.get("fresh").accessToken == "FRESH")
            endpoint.closeGate()
            try await body(agent, endpoint)
            endpoint.openGate()
        }
    }

    @Test("requests that wait on no person answer in turn order on one connection; quick methods, PIN-or-touch methods and refusals answer at once; a fast path never answers ahead of an earlier request")
    func turnOrder() async throws {
        try await Self.withHeldRefresh { agent, endpoint in
            let client = try agent.connect()
            // 1 holds the turn (its refresh is held); 2 (the fast path's form), 3 and 4 wait behind it in that order.
            try client.send(request(1, "token.get", #"{"account":"expired"}"#) + plainTokenGet(2, "fresh")
                            + request(3, "token.list", "{}") + request(4, "vault.status"))
            // Answered at once beside them: a quick method, a method that takes no turn, an id already in flight.
            try client.send(request(5, "agent.status") + request(6, "webauthn.get", "{}") + request(1, "token.list", "{}"))
            var atOnce: [Int: [String: Any]] = [:]
            for _ in 0..<3 {
                let answer = try client.nextAnswer()
                atOnce[try #require(answer["id"] as? Int, "\(answer)")] = answer
            }
            #expect(atOnce[5]?.result?["protocolVersion"] as? Int == 1, "\(atOnce)")
            #expect(atOnce[6]?.errorKind == "invalid_params", "\(atOnce)")
            #expect(atOnce[1]?.errorKind == "invalid_request", "request id 1 is already in flight: \(atOnce)")
            #expect(endpoint.refreshes == 0)

            endpoint.openGate()
            let answers = try (0..<4).map { _ in try client.nextAnswer() }
            #expect(answers.map { $0["id"] as? Int } == [1, 2, 3, 4], "\(answers)")
            #expect(answers[0].result?["accessToken"] as? String == "AT-2" && answers[0].result?["refreshed"] as? Bool == true)
            #expect(answers[1].result?["accessToken"] as? String == "FRESH")
            #expect((answers[2].result?["tokens"] as? [Any])?.count == 2, "\(answers[2])")
            #expect(answers[3].result?["initialized"] as? Bool == true, "\(answers[3])")
        }
    }

    @Test("a token.get pipelined after a token.put on the same connection sees what the put stored (the fast path waits its turn)")
    func fastPathAfterPut() async throws {
        try await Self.withHeldRefresh { agent, _ in
            let client = try agent.connect()
            let document = #"{"access_token":"NEW","token_type":"Bearer","expires_in":3600,"refresh_token":"RF2","issuer":"https://id.example.org","client_id":"cli","token_endpoint":"https://id.example.org/token"}"#
            try client.send(request(1, "token.put", #"{"account":"fresh","token":\#(document)}"#) + plainTokenGet(2, "fresh"))
            let put = try client.nextAnswer()
            #expect(put["id"] as? Int == 1 && put["error"] == nil, "\(put)")
            let got = try client.nextAnswer()
            #expect(got["id"] as? Int == 2 && got.result?["accessToken"] as? String == "NEW", "\(got)")
            // With nothing in flight, the fast path answers from memory again.
            #expect(try client.call(3, "token.get", params: #"{"account":"fresh","minValid":60}"#).result?["accessToken"] as? String == "NEW")
        }
    }

    @Test("$/cancel of a request waiting for its turn answers cancelled at once; it never runs")
    func cancelWhileWaiting() async throws {
        try await Self.withHeldRefresh { agent, endpoint in
            let client = try agent.connect()
            try client.send(request(1, "token.get", #"{"account":"expired"}"#) + request(2, "token.put", #"{"account":"fresh","token":{}}"#))
            try client.send(#"{"jsonrpc":"2.0","method":"$/cancel","params":{"id":2}}"# + "\n")
            let cancelled = try client.nextAnswer()
            #expect(cancelled["id"] as? Int == 2 && cancelled.errorKind == "cancelled", "\(cancelled)")
            endpoint.openGate()
            let first = try client.nextAnswer()
            #expect(first["id"] as? Int == 1 && first.result?["accessToken"] as? String == "AT-2", "\(first)")
            #expect(try client.call(3, "token.get", params: #"{"account":"fresh"}"#).result?["accessToken"] as? String == "FRESH",
                    "the cancelled put never ran")
        }
    }

    @Test("with a request that may wait for a person among the 8 in flight, the agent reads on: a ninth is too_many_connections, $/pin and $/cancel get through")
    func ninthRequest() async throws {
        try await Self.withHeldRefresh(keyPIN: "246810") { agent, endpoint in
            let client = try agent.connect()
            // 1 waits for its PIN (a person); 2 holds the turn; 3…8 wait for it: eight in flight.
            try client.send(request(1, "credentials.list", #"{"device":"virtual","interactive":true}"#))
            let asked = try Self.nextQuestion(client)
            #expect(asked["id"] as? Int == 1, "\(asked)")
            #expect((asked["pin"] as? [String: Any])?["what"] as? String == "security key PIN", "\(asked)")
            var lines = request(2, "token.get", #"{"account":"expired"}"#)
            for id in 3...8 { lines += request(id, "token.list", "{}") }
            try client.send(lines + request(9, "token.list", "{}"))
            let ninth = try client.nextAnswer()
            #expect(ninth["id"] as? Int == 9 && ninth.errorKind == "too_many_connections", "\(ninth)")

            // A wrong PIN: asked again, with the tries left.
            try client.send(#"{"jsonrpc":"2.0","method":"$/pin","params":{"id":1,"pin":"111111"}}"# + "\n")
            let again = try Self.nextQuestion(client)
            #expect((again["pin"] as? [String: Any])?["triesLeft"] as? Int == 7, "\(again)")
            try client.send(#"{"jsonrpc":"2.0","method":"$/cancel","params":{"id":1}}"# + "\n")
            let cancelled = try client.nextAnswer()
            #expect(cancelled["id"] as? Int == 1 && cancelled.errorKind == "cancelled", "\(cancelled)")

            endpoint.openGate()
            #expect(try (2...8).map { _ in try client.nextAnswer()["id"] as? Int } == Array(2...8))
        }
    }

    /// The params of the next `pin` question, after any other progress notifications.
    static func nextQuestion(_ client: LineClient) throws -> [String: Any] {
        while true {
            let message = try client.readJSON(timeout: 30)
            guard message["method"] as? String == "progress", let params = message["params"] as? [String: Any] else {
                throw TestFailure("an answer came instead of the pin question: \(message)")
            }
            if params["stage"] as? String == "pin" { return params }
        }
    }

    @Test("20 requests pipelined behind a held refresh, more than the 8 a connection may have in flight: all served later, in order, none refused")
    func pausedNotRefused() async throws {
        try await Self.withHeldRefresh { agent, endpoint in
            let client = try agent.connect()
            var lines = request(1, "token.get", #"{"account":"expired"}"#)
            for id in 2...20 { lines += plainTokenGet(id, "fresh") }
            try client.send(lines)
            endpoint.openGate()
            let ids = try (1...20).map { _ in try client.nextAnswer() }.map { answer -> Int in
                #expect(answer["error"] == nil, "\(answer)")
                return answer["id"] as? Int ?? 0
            }
            #expect(ids == Array(1...20), "in order, none refused: \(ids)")
        }
    }

    @Test("past --max-connections, a connection gets one too_many_connections line and is closed; the client reports that error")
    func connectionLimit() async throws {
        var limits = AgentServer.Limits()
        limits.maxConnections = 2
        try await InProcessAgent.with(limits: limits) { agent in
            let first = try agent.connect(), second = try agent.connect()
            #expect(try first.call(1, "agent.status").result != nil)
            #expect(try second.call(1, "agent.status").result != nil)
            let third = try agent.connect()
            let refused = try third.readJSON()
            #expect(refused.errorKind == "too_many_connections" && refused["id"] is NSNull, "\(refused)")
            #expect(((refused["error"] as? [String: Any])?["message"] as? String)?.contains("2 connections") == true)
            #expect(try third.readLine(timeout: 10) == nil)

            let fourth = try #require(try AgentConnection.connect(path: agent.socketPath))
            do throws(AgentError) {
                _ = try await fourth.call(AgentStatusMethod.self, NoParams(), interaction: ScriptedPerson())
                Issue.record("a connection past the limit was served")
            } catch {
                #expect(error.kind == .tooManyConnections, "\(error)")
            }
            #expect(try first.call(2, "agent.status").result != nil, "the connections within the limit are still served")
        }
    }
}
