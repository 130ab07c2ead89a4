import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `token get` through the real agent against a real token endpoint on
/// loopback: coalesced refreshes, refresh-token rotation persisted before
/// the answer, `invalid_grant`, network failures — and no token in any file.
@Suite(.ownThreads) struct TokenRefreshThroughAgentTests {
    @Test("8 concurrent gets of an expired token make one refresh; the rotated refresh token survives a restart")
    func concurrentGetsShareOneRefresh() throws {
        let endpoint = try TokenEndpoint(refreshToken: "RT-1", expiresIn: 30)
        defer { endpoint.stop() }
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        try agent.put("work", VaultAgent.document(access: "AT-1", refresh: "RT-1", expiresIn: 0, endpoint: endpoint.url))

        // Hold the refresh until all eight requests are inside the agent, so
        // that a broken coalescing would show as eight refresh requests.
        endpoint.closeGate()
        let outputs = try TemporaryDirectory.make(prefix: "gets")
        defer { try? FileManager.default.removeItem(atPath: outputs) }
        let passkey = try ProgramPaths.built("passkey")
        let gets = try (0..<8).map { index in
            try RunningProcess(passkey, ["token", "get", "work", "--min-valid", "60"], environment: agent.harness.environment,
                               directory: outputs, name: "get-\(index)")
        }
        let client = try agent.harness.connect()
        var pending = 0
        for attempt in 0..<1500 where pending < 8 {
            pending = (try client.call(attempt + 1, "agent.status").result?["pendingRequests"] as? Int) ?? 0
            if pending < 8 { usleep(20_000) }
        }
        #expect(pending == 8, "all eight token.get requests reached the agent")
        endpoint.openGate()
        for get in gets {
            #expect(get.waitForExit(timeout: 60) == 0, "\(get.standardError)")
            #expect(get.standardOutput == "AT-2\n")
        }
        let refreshes = endpoint.received
        #expect(refreshes.count == 1)
        #expect(refreshes.first?["grant_type"] == "refresh_token")
        #expect(refreshes.first?["refresh_token"] == "RT-1")
        #expect(refreshes.first?["client_id"] == "cli")

        // AT-2 lives 30 s, less than --min-valid 60: after a restart (and an
        // unlock) the next get refreshes with the rotated token, RT-2.
        try agent.restart()
        #expect(try agent.isLocked)
        let locked = try agent.passkey(["token", "get", "work"])
        #expect(locked.status == 7)
        #expect(locked.standardError.contains("locked"))
        try agent.unlock()
        let again = try agent.passkey(["token", "get", "work", "--min-valid", "60"])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardOutput == "AT-3\n")
        #expect(endpoint.received.count == 2)
        #expect(endpoint.received.last?["refresh_token"] == "RT-2")

        // With --min-valid 0 the cached AT-3 (30 s left) is enough: no request.
        let cached = try agent.passkey(["token", "get", "work", "--min-valid", "0"])
        #expect(cached.standardOutput == "AT-3\n")
        #expect(endpoint.received.count == 2)

        let leaks = agent.filesContaining(["AT-1", "AT-2", "AT-3", "RT-1", "RT-2", "RT-3"])
        #expect(leaks.isEmpty, "tokens found in \(leaks)")
    }

    @Test("invalid_grant keeps the entry and says to sign in again; a failed network names the URL")
    func refusedAndUnreachable() throws {
        let endpoint = try TokenEndpoint(refreshToken: "RT-1", expiresIn: 3600)
        defer { endpoint.stop() }
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        try agent.put("work", VaultAgent.document(access: "AT-1", refresh: "RT-1", expiresIn: 0, endpoint: endpoint.url))
        let entries = agent.entryFiles
        endpoint.set(.invalidGrant)

        let refused = try agent.passkey(["token", "get", "work"])
        #expect(refused.status == 8)
        #expect(refused.standardOutput.isEmpty)
        #expect(refused.standardError.contains("invalid_grant"))
        #expect(refused.standardError.contains("sign in again"))
        let json = try agent.passkey(["token", "get", "work", "--json"])
        let error = try #require((try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])?["error"] as? [String: Any])
        #expect(error["kind"] as? String == "server_error")
        #expect(error["errorCode"] as? String == "invalid_grant")
        #expect(error["reloginRequired"] as? Bool == true)

        // The entry is still there, unchanged, and still listed.
        #expect(agent.entryFiles == entries)
        let list = try agent.passkey(["token", "list", "--json"])
        #expect(list.status == 0, "\(list.standardError)")
        #expect(list.standardOutput.contains("\"account\" : \"work\""))
        #expect(!list.standardOutput.contains("AT-1"))
        #expect(!list.standardOutput.contains("RT-1"))

        // Once the server takes the token again, it works.
        endpoint.set(.rotate)
        let recovered = try agent.passkey(["token", "get", "work"])
        #expect(recovered.standardOutput == "AT-2\n", "\(recovered.standardError)")

        // Nobody listens on this port: the error names the URL.
        let closedPort = try Self.unusedPort()
        let unreachable = "http://127.0.0.1:\(closedPort)/oauth2/token"
        try agent.put("offline", VaultAgent.document(access: "AT-9", refresh: "RT-9", expiresIn: 0, endpoint: unreachable))
        let offline = try agent.passkey(["token", "get", "offline"])
        #expect(offline.status == 9)
        #expect(offline.standardError.contains(unreachable), "\(offline.standardError)")

        // Without a refresh token an expired token cannot be renewed.
        try agent.put("short", VaultAgent.document(access: "AT-8", refresh: nil, expiresIn: 0, endpoint: endpoint.url))
        let short = try agent.passkey(["token", "get", "short"])
        #expect(short.status == 8)
        #expect(short.standardError.contains("no refresh token"))

        let missing = try agent.passkey(["token", "get", "nobody"])
        #expect(missing.status == 10)
        #expect(missing.standardError.contains("no tokens are stored for \"nobody\""))

        let removed = try agent.passkey(["token", "rm", "offline"])
        #expect(removed.status == 0, "\(removed.standardError)")
        #expect(try agent.passkey(["token", "rm", "offline"]).status == 10)
        #expect(agent.filesContaining(["AT-1", "AT-2", "AT-8", "AT-9", "RT-1", "RT-2", "RT-9"]).isEmpty)
    }

    /// A loopback port nobody listens on (bound, then closed).
    static func unusedPort() throws -> Int { Int(try LoopbackTCP.freePort()) }
}
