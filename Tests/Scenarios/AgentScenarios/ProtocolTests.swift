import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The framing and JSON-RPC rules of docs/PROTOCOL.md, against the real agent.
@Suite(.ownThreads) struct ProtocolTests {
    @Test func statusAnswersWithVersionAndProtocol() throws {
        let harness = try AgentHarness()
        try harness.start()
        let status = try #require(try harness.connect().call(1, "agent.status").result)
        #expect(status["protocolVersion"] as? Int == 1)
        #expect(status["agentRunning"] as? Bool == true)
        #expect((status["version"] as? String)?.isEmpty == false)
        #expect(status["pendingRequests"] as? Int == 0)
    }

    @Test func malformedJSONIsAParseErrorAndTheConnectionStaysUsable() throws {
        let harness = try AgentHarness()
        try harness.start()
        let client = try harness.connect()
        try client.send("{this is not json\n")
        let error = try client.readJSON()
        #expect(error.errorCode == -32700)
        #expect(error.errorKind == "parse_error")
        #expect(error["id"] is NSNull)
        #expect(try client.call(2, "agent.status").result != nil)
    }

    @Test func invalidRequestsAndUnknownMethods() throws {
        let harness = try AgentHarness()
        try harness.start()
        let client = try harness.connect()
        #expect(try client.call(1, "no.such.method").errorCode == -32601)
        try client.send("{\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"agent.status\"}\n")
        let wrongVersion = try client.readJSON()
        #expect(wrongVersion.errorCode == -32600)
        #expect(wrongVersion["id"] as? Int == 5)
        try client.send("[1,2,3]\n")
        #expect(try client.readJSON().errorCode == -32600)
        let badParams = try client.call(3, "webauthn.get", params: "{\"origin\":42}")
        #expect(badParams.errorCode == -32602)
        #expect((badParams["error"] as? [String: Any])?["message"] as? String != nil)
        // A notification (no id) gets no answer; the next request is answered normally.
        try client.send("{\"jsonrpc\":\"2.0\",\"method\":\"agent.status\"}\n")
        #expect(try client.call(4, "agent.status")["id"] as? Int == 4)
    }

    @Test func anOverlongLineIsRefusedAndTheAgentKeepsServing() throws {
        let harness = try AgentHarness()
        try harness.start()
        let client = try harness.connect()
        let huge = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"agent.status\",\"params\":{\"x\":\"" +
            String(repeating: "a", count: 2 << 20) + "\"}}\n"
        try? client.send(huge)
        var sawError = false
        while let line = try client.readLine(timeout: 10) {
            if line.contains("request_too_large") { sawError = true }
        }
        #expect(sawError, "an error line before the connection closes")
        #expect(try harness.connect().call(1, "agent.status").result != nil)
    }

    /// 64 clients × 200 requests, all answered, while another client sits on half a line.
    /// (The line deadline is raised so that a slow machine cannot drop the staller: HalfLineTests covers it.)
    @Test func manyClientsAreServedWhileOneStalls() async throws {
        let harness = try AgentHarness()
        try harness.start(arguments: ["--line-timeout", "600"])
        let staller = try harness.connect()
        try staller.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"agent.st")
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    let client = try harness.connect()
                    var count = 0
                    for id in 1...200 where try client.call(id, "agent.status")["id"] as? Int == id { count += 1 }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(answered == 64 * 200)
        // The staller finishes its line late and is answered too.
        try staller.send("atus\"}\n")
        #expect(try staller.readJSON()["id"] as? Int == 1)
    }

    /// A client that sends and never reads fills its own buffers, not anyone else's.
    @Test func aClientThatStopsReadingBlocksNobody() async throws {
        let harness = try AgentHarness()
        try harness.start()
        let greedy = try harness.connect()
        let flood = Array(String(repeating: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"agent.status\"}\n", count: 2_000).utf8)
        // Send without blocking until the socket takes no more: the agent has
        // stopped reading us (its answers to us fill buffers we never read).
        // Nothing to wait for on a clock: EAGAIN is the event.
        var sent = 0, full = false
        while !full && sent < 50 * flood.count {
            let written = flood.withUnsafeBytes { send(greedy.fd, $0.baseAddress! + sent % flood.count, flood.count - sent % flood.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            guard written > 0 else {
                full = errno == EAGAIN || errno == EWOULDBLOCK
                break
            }
            sent += written
        }
        #expect(full, "the agent kept reading \(sent) bytes from a client that reads nothing")
        let other = try harness.connect()
        for id in 1...100 {
            #expect(try other.call(id, "agent.status", timeout: 5)["id"] as? Int == id)
        }
    }

    @Test func sigtermStopsCleanlyAndRemovesTheSocket() throws {
        let harness = try AgentHarness()
        let agent = try harness.start()
        #expect(agent.stop(signal: SIGTERM) == 0)
        #expect(FileManager.default.fileExists(atPath: harness.socketPath) == false)
        let second = try harness.start()
        #expect(second.stop(signal: SIGINT) == 0)
        #expect(FileManager.default.fileExists(atPath: harness.socketPath) == false)
    }

    @Test func socketActivationServesAndLeavesTheSocketAlone() throws {
        let harness = try AgentHarness()
        let path = harness.home + "/activated.sock"
        let activator = try RunningProcess("/usr/bin/systemd-socket-activate",
                                           ["-l", path, try ProgramPaths.built("passkey-agent"), "--foreground"],
                                           environment: harness.environment, directory: harness.home, name: "activate")
        defer { activator.stop(signal: SIGKILL) }
        // It says so after listen(2); the file already exists after bind(2),
        // and a client that connects in between is refused.
        try activator.waitUntil("systemd-socket-activate listens") { activator.standardError.contains("Listening on \(path)") }
        let status = try harness.passkey(["status", "--json"], extraEnvironment: ["PASSKEY_AGENT_SOCK": path])
        #expect(status.status == 0, "\(status.standardError)")
        #expect(status.standardOutput.contains("\"agentRunning\" : true"))
        // systemd-socket-activate exec'd the agent in its own process: SIGTERM
        // ends it, and the activated socket is left for systemd.
        #expect(activator.stop(signal: SIGTERM) == 0)
        #expect(FileManager.default.fileExists(atPath: path))
    }
}
