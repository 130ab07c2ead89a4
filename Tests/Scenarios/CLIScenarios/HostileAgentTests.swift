import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A process of the same user listening at PASSKEY_AGENT_SOCK may answer
/// anything. Numbers in its answers must not crash `passkey` (a trap is exit
/// status 132/133, by a signal), whatever they are.
@Suite(.ownThreads) struct HostileAgentTests {
    /// A fake agent answering each method with a canned line.
    private static let fakeAgent = #"""
    import json, socket, sys, os
    answers = json.loads(sys.argv[2])
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(sys.argv[1]); server.listen(8)
    open(sys.argv[1] + ".ready", "w").close()
    while True:
        conn, _ = server.accept()
        data = b""
        while not data.endswith(b"\n"):
            chunk = conn.recv(65536)
            if not chunk: break
            data += chunk
        for line in data.splitlines():
            request = json.loads(line)
            if "id" not in request: continue
            answer = answers[request["method"]].replace("ID", json.dumps(request["id"]))
            conn.sendall(answer.encode() + b"\n")
        conn.close()
    """#

    private func run(_ arguments: [String], answers: [String: String]) throws -> ProcessResult {
        let directory = try TemporaryDirectory.make(prefix: "hostile-agent")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socketPath = directory + "/agent.sock"
        try Self.fakeAgent.write(toFile: directory + "/agent.py", atomically: true, encoding: .utf8)
        let encoded = String(decoding: try JSONSerialization.data(withJSONObject: answers), as: UTF8.self)
        let agent = try RunningProcess("/usr/bin/python3", [directory + "/agent.py", socketPath, encoded],
                                       environment: ProcessInfo.processInfo.environment, directory: directory, name: "fake-agent")
        defer { _ = agent.stop(signal: SIGKILL) }
        try agent.waitUntil("the fake agent listens") { FileManager.default.fileExists(atPath: socketPath + ".ready") }
        var environment = ProcessInfo.processInfo.environment
        environment["PASSKEY_AGENT_SOCK"] = socketPath
        environment["HOME"] = directory
        return try ProcessResult.run(try ProgramPaths.built("passkey"), arguments, standardInput: nil,
                                     environment: environment, scratch: directory, timeout: 30)
    }

    @Test func anUptimeBeyondEveryIntegerIsShownAsUnknown() throws {
        let result = try run(["status"], answers: ["agent.status": #"""
            {"jsonrpc":"2.0","id":ID,"result":{"version":"9","protocolVersion":1,"uptimeSeconds":1e300,"pendingRequests":0,"devices":[],"agentRunning":true,"pid":1}}
            """#])
        #expect(result.status == 0, "\(result.status): \(result.standardError)")
        #expect(result.standardOutput.contains("up ? s"), "\(result.standardOutput)")
    }

    @Test func expiryTimesBeyondEveryCalendarAreShownWithoutTrapping() throws {
        // ±(2^53-1): the largest integers a JSON number carries exactly to the CLI.
        let summary = #"{"account":"ACCOUNT","issuer":"https://i","clientId":"c","tokenType":"Bearer","hasRefreshToken":false,"hasIdToken":false,"updatedAt":0,"expiresAt":EXP}"#
        let tokens = [summary.replacingOccurrences(of: "ACCOUNT", with: "past").replacingOccurrences(of: "EXP", with: "-9007199254740991"),
                      summary.replacingOccurrences(of: "ACCOUNT", with: "future").replacingOccurrences(of: "EXP", with: "9007199254740991")]
        let result = try run(["token", "list"], answers: ["token.list": #"{"jsonrpc":"2.0","id":ID,"result":{"tokens":["#
            + tokens.joined(separator: ",") + #"],"damaged":[]}}"#])
        #expect(result.status == 0, "\(result.status): \(result.standardError)")
        #expect(result.standardOutput.contains("long ago"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("never"), "\(result.standardOutput)")
    }

    @Test func aTriesLeftCountBeyondEveryIntegerIsLeftOut() throws {
        let result = try run(["lock"], answers: ["agent.lock": #"""
            {"jsonrpc":"2.0","id":ID,"error":{"code":1014,"message":"wrong PIN","data":{"kind":"pin_invalid","triesLeft":1e300}}}
            """#])
        #expect(result.status != 0 && result.status < 128, "\(result.status): \(result.standardError)")
        #expect(result.standardError.contains("wrong PIN"), "\(result.standardError)")
    }
}
