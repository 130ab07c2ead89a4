import Foundation
import Testing
import TestSupport

/// Debian's kubectl runs `passkey token get ACCOUNT --format exec-credential`
/// as its exec credential plugin (interactiveMode: Never) and sends the
/// bearer token to a local HTTPS stand-in API server; a second run, after
/// the agent refreshed the token, carries the new one.
@Suite(.ownThreads) struct KubectlExecCredentialTests {
    static func authorizations(_ log: String) -> [String?] {
        TextFile.read(log).split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]).map { $0["authorization"] as? String }
        }
    }

    @Test("kubectl get --raw /api twice: each request carries the then-current token; a locked vault fails without a prompt")
    func kubectlSendsTheToken() throws {
        let setup = try TokenConsumerSetup()
        defer { setup.remove() }
        let scratch = setup.scratch
        let environment = try setup.environment(["HOME": scratch])
        // A self-signed certificate for 127.0.0.1, which the kubeconfig trusts as its CA.
        let made = try ProcessResult.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", scratch + "/server.key", "-out", scratch + "/server.pem"],
            standardInput: nil, environment: environment, scratch: scratch, timeout: 60)
        try #require(made.status == 0, "\(made.standardError)")
        let log = scratch + "/requests.log"
        let (server, port) = try TokenConsumerSetup.startServer(
            "kube_api_standin.py", ["--cert", scratch + "/server.pem", "--key", scratch + "/server.key", "--log", log],
            directory: scratch, name: "kube-api")
        defer { _ = server.stop() }
        // Debian 12's kubectl (kubernetes-client 1.20) knows only v1beta1 and no interactiveMode;
        // 1.22 and later take v1, where interactiveMode is required.
        let version = try ProcessResult.run("/usr/bin/env", ["kubectl", "version", "--client", "-o", "json"], standardInput: nil,
                                            environment: environment, scratch: scratch, timeout: 60)
        let client = (try? JSONSerialization.jsonObject(with: Data(version.standardOutput.utf8)) as? [String: Any])?["clientVersion"] as? [String: Any]
        let minor = Int((client?["minor"] as? String ?? "").prefix { $0.isNumber }) ?? 0
        let exec = minor >= 22 ? "apiVersion: client.authentication.k8s.io/v1\n      interactiveMode: Never"
                               : "apiVersion: client.authentication.k8s.io/v1beta1"
        let kubeconfig = scratch + "/kubeconfig"
        try """
            apiVersion: v1
            kind: Config
            clusters:
            - name: local
              cluster:
                server: https://127.0.0.1:\(port)
                certificate-authority: \(scratch)/server.pem
            users:
            - name: work
              user:
                exec:
                  \(exec)
                  command: passkey
                  args: ["token", "get", "work", "--format", "exec-credential"]
            contexts:
            - name: local
              context: {cluster: local, user: work}
            current-context: local
            """.write(toFile: kubeconfig, atomically: true, encoding: .utf8)
        // In a session of its own (setsid): no controlling terminal, even when the tests run in one,
        // so that nothing could ask even if kubectl said the call may be interactive.
        func kubectl() throws -> ProcessResult {
            try ProcessResult.run("/usr/bin/setsid", ["-w", "kubectl", "--kubeconfig", kubeconfig, "get", "--raw", "/api"],
                                  standardInput: nil, environment: environment, scratch: scratch, timeout: 120)
        }
        func current() throws -> String {
            try setup.agent.passkey(["token", "get", "work", "--min-valid", "0"]).standardOutput
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }

        let first = try kubectl()
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains("APIVersions"))
        let token1 = try current()
        #expect(Self.authorizations(log).last == "Bearer " + token1, "the request carried the token the agent holds")
        #expect(jwtClaims(token1)?["sub"] as? String == "alice")

        // 30-second tokens, 60 seconds asked: the next run refreshes first.
        let second = try kubectl()
        #expect(second.status == 0, "\(second.standardError)")
        let token2 = try current()
        #expect(token2 != token1, "the agent refreshed the token")
        #expect(Self.authorizations(log).last == "Bearer " + token2)
        #expect(Self.authorizations(log).allSatisfy { $0 == "Bearer " + token1 || $0 == "Bearer " + token2 })

        // Not interactive (kubectl says so in KUBERNETES_EXEC_INFO): a locked
        // vault is an error at once, and no request goes out without a token.
        let before = Self.authorizations(log).count
        try setup.agent.passkey(["lock"])
        let locked = try kubectl()
        #expect(locked.status != 0)
        #expect(locked.standardError.contains("locked"), "\(locked.standardError)")
        #expect(Self.authorizations(log).count == before || Self.authorizations(log).dropFirst(before).allSatisfy { $0 == nil })
        #expect(setup.agent.filesContaining([token1, token2]).isEmpty)
    }

    @Test("the ExecCredential: apiVersion from KUBERNETES_EXEC_INFO, RFC 3339 expiry, unknown versions refused")
    func execCredentialDocument() throws {
        let setup = try TokenConsumerSetup()
        defer { setup.remove() }
        func get(_ info: String?) throws -> ProcessResult {
            try setup.agent.harness.passkey(["token", "get", "work", "--format", "exec-credential"],
                                            extraEnvironment: info.map { ["KUBERNETES_EXEC_INFO": $0] } ?? [:])
        }
        let beta = try get(#"{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","spec":{"interactive":false}}"#)
        #expect(beta.status == 0, "\(beta.standardError)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(beta.standardOutput.utf8)) as? [String: Any])
        #expect(document["apiVersion"] as? String == "client.authentication.k8s.io/v1beta1")
        #expect(document["kind"] as? String == "ExecCredential")
        let status = try #require(document["status"] as? [String: Any])
        #expect(jwtClaims(status["token"] as? String ?? "")?["sub"] as? String == "alice")
        let stamp = try #require(status["expirationTimestamp"] as? String)
        let expiry = try #require(try? Date(stamp, strategy: .iso8601))
        #expect(abs(expiry.timeIntervalSinceNow - 30) < 60, "\(stamp)")
        #expect(stamp.hasSuffix("Z") && stamp.count == 20, "RFC 3339 in UTC: \(stamp)")

        let plain = try get(nil)
        #expect(plain.standardOutput.contains("\"apiVersion\" : \"client.authentication.k8s.io/v1\""), "v1 without KUBERNETES_EXEC_INFO")
        let unknown = try get(#"{"apiVersion":"client.authentication.k8s.io/v2","kind":"ExecCredential"}"#)
        #expect(unknown.status == 11 && unknown.standardOutput.isEmpty)
        #expect(try get("not json").status == 11)
        #expect(try setup.agent.passkey(["token", "get", "work", "--format", "exec-credential", "--id-token"]).status == 11)
    }
}
