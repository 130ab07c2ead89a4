import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `passkey exec ACCOUNT -- COMMAND…` through the real agent: the command
/// gets the token in its environment, becomes the very process its caller
/// started (exit status and signals are its own), and no argv holds the token.
@Suite(.ownThreads) struct ExecThroughAgentTests {
    /// A child that reports what it was given: its environment's token and
    /// socket, its pid and its own /proc/self/cmdline.
    static let reporter = """
    import json, os, sys
    print(json.dumps({"token": os.environ.get(sys.argv[1]), "sock": os.environ.get("PASSKEY_AGENT_SOCK"),
                      "expires": os.environ.get("PASSKEY_TOKEN_EXPIRES_AT"), "pid": os.getpid(),
                      "cmdline": open("/proc/self/cmdline", "rb").read().decode()}))
    """

    @Test("the token is in the child's environment, the same `token get` gives, and on no argv; the child is passkey's own process")
    func tokenInEnvironment() throws {
        let endpoint = try TokenEndpoint(refreshToken: "RT-1", expiresIn: 3600)
        defer { endpoint.stop() }
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        // Expired at once: exec's get refreshes it (AT-2) as `token get` would.
        try agent.put("work", VaultAgent.document(access: "AT-1", refresh: "RT-1", expiresIn: 0, endpoint: endpoint.url))

        let scratch = try TemporaryDirectory.make(prefix: "exec")
        defer { TemporaryDirectory.remove(scratch) }
        let run = try RunningProcess(try ProgramPaths.built("passkey"),
                                     ["exec", "work", "--", "python3", "-c", Self.reporter, "PASSKEY_ACCESS_TOKEN"],
                                     environment: agent.harness.environment, directory: scratch, name: "exec")
        #expect(run.waitForExit(timeout: 60) == 0, "\(run.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any],
                                  "\(run.standardOutput) \(run.standardError)")
        #expect(report["token"] as? String == "AT-2")
        #expect(report["pid"] as? Int == Int(run.pid), "passkey became the command: the caller waits for the command itself")
        #expect(report["sock"] as? String == agent.harness.socketPath)
        let expires = try #require(Int64(report["expires"] as? String ?? ""))
        #expect(abs(expires - Int64(Date().timeIntervalSince1970) - 3600) < 120)
        let cmdline = try #require(report["cmdline"] as? String)
        #expect(cmdline.contains("PASSKEY_ACCESS_TOKEN") && !cmdline.contains("AT-2"), "no argv holds the token: \(cmdline)")

        let get = try agent.passkey(["token", "get", "work", "--min-valid", "0"])
        #expect(get.standardOutput == "AT-2\n", "exec handed out the token `token get` gives")
        #expect(endpoint.received.count == 1)

        // --env names the variable; PASSKEY_ACCESS_TOKEN is then not set.
        let named = try agent.passkey(["exec", "work", "--env", "GH_TOKEN", "--", "python3", "-c",
                                       "import os; print(os.environ.get('GH_TOKEN'), os.environ.get('PASSKEY_ACCESS_TOKEN'))"])
        #expect(named.status == 0, "\(named.standardError)")
        #expect(named.standardOutput == "AT-2 None\n")
        #expect(agent.filesContaining(["AT-2", "RT-2"]).isEmpty)
    }

    @Test("exit statuses: the command's own, 128+N for a signal, 127 and 126 when it cannot run, passkey's own when no token")
    func exitStatuses() throws {
        let endpoint = try TokenEndpoint(refreshToken: "RT-1", expiresIn: 3600)
        defer { endpoint.stop() }
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        try agent.put("work", VaultAgent.document(access: "AT-1", refresh: "RT-1", expiresIn: 3600, endpoint: endpoint.url))

        #expect(try agent.passkey(["exec", "work", "--", "/bin/sh", "-c", "exit 42"]).status == 42)
        // The shell kills itself: the caller sees the signal (the harness reports 128+N, as a shell does).
        #expect(try agent.passkey(["exec", "work", "--", "/bin/sh", "-c", "kill -TERM $$"]).status == 128 + SIGTERM)

        let missing = try agent.passkey(["exec", "work", "--", "no-such-program-\(getpid())"])
        #expect(missing.status == 127)
        #expect(missing.standardError.contains("cannot run no-such-program"))
        let scratch = try TemporaryDirectory.make(prefix: "exec-status")
        defer { TemporaryDirectory.remove(scratch) }
        let notRunnable = scratch + "/data.txt"
        try "not a program\n".write(toFile: notRunnable, atomically: true, encoding: .utf8)
        #expect(try agent.passkey(["exec", "work", "--", notRunnable]).status == 126)

        // No token: passkey's own status, and the command never runs.
        let marker = scratch + "/ran"
        let noAccount = try agent.passkey(["exec", "nobody", "--", "/bin/sh", "-c", "touch \(marker)"])
        #expect(noAccount.status == 10, "\(noAccount.standardError)")
        #expect(!FileManager.default.fileExists(atPath: marker))
        try agent.passkey(["lock"])
        let locked = try agent.passkey(["exec", "work", "--", "/bin/sh", "-c", "touch \(marker)"])
        #expect(locked.status == 7)
        #expect(!FileManager.default.fileExists(atPath: marker))

        // The command line is checked before anything runs.
        #expect(try agent.passkey(["exec", "work", "--env", "NOT-A-NAME", "--", "true"]).status == 64)
        #expect(try agent.passkey(["exec", "work", "--env", "PASSKEY_AGENT_SOCK", "--", "true"]).status == 64)
        #expect(try agent.passkey(["exec", "work"]).status == 64)
    }
}
