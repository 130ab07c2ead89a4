import Foundation
import Testing
import TestSupport

/// The docker CLI (no daemon needed) calls `docker-credential-passkey` named
/// in `credHelpers`: `docker manifest inspect` against a loopback registry
/// stand-in that lets in only tokens the devserver accepts; and the
/// docker-credential-helpers protocol's own examples, piped to the helper.
@Suite(.ownThreads) struct DockerCredentialHelperTests {
    static func requests(_ log: String) -> [[String: Any]] {
        TextFile.read(log).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test("docker manifest inspect through credHelpers: the registry gets devserver tokens, refreshed between two runs; logout leaves the vault")
    func dockerUsesTheHelper() throws {
        let setup = try TokenConsumerSetup()
        defer { setup.remove() }
        let scratch = setup.scratch
        let dockerConfig = scratch + "/docker-config"
        try FileManager.default.createDirectory(atPath: dockerConfig, withIntermediateDirectories: true)
        let environment = try setup.environment(["HOME": scratch, "DOCKER_CONFIG": dockerConfig])
        let made = try ProcessResult.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", scratch + "/registry.key", "-out", scratch + "/registry.pem"],
            standardInput: nil, environment: environment, scratch: scratch, timeout: 60)
        try #require(made.status == 0, "\(made.standardError)")
        let log = scratch + "/registry.log"
        let (server, port) = try TokenConsumerSetup.startServer(
            "registry_standin.py", ["--cert", scratch + "/registry.pem", "--key", scratch + "/registry.key",
                                    "--userinfo", setup.provider.issuer + "/v1/userinfo", "--log", log],
            directory: scratch, name: "registry")
        defer { _ = server.stop() }
        let registry = "127.0.0.1:\(port)"
        try #"{"credHelpers": {"\#(registry)": "passkey"}}"#.write(toFile: dockerConfig + "/config.json", atomically: true, encoding: .utf8)
        try setup.writeConfig("""
            [credential.registry]
            host = "\(registry)"
            account = "work"
            """)
        func docker(_ arguments: [String]) throws -> ProcessResult {
            try ProcessResult.run("/usr/bin/env", ["docker"] + arguments, standardInput: nil, environment: environment,
                                  scratch: scratch, timeout: 120)
        }

        let first = try docker(["manifest", "inspect", "--insecure", registry + "/team/app:1"])
        #expect(first.status == 0, "\(first.standardOutput)\(first.standardError)")
        #expect(first.standardOutput.contains("\"schemaVersion\": 2"))
        // One helper call per run here (docker 28); more would each refresh, since tokens live 30 s.
        let firstTokens = Set(Self.requests(log).compactMap { $0["password"] as? String })
        #expect(!firstTokens.isEmpty)
        let firstCount = Self.requests(log).count

        let second = try docker(["manifest", "inspect", "--insecure", registry + "/team/app:1"])
        #expect(second.status == 0, "\(second.standardOutput)\(second.standardError)")
        let tokens = Set(Self.requests(log).compactMap { $0["password"] as? String })
        let secondTokens = Set(Self.requests(log).dropFirst(firstCount).compactMap { $0["password"] as? String })
        #expect(!secondTokens.isEmpty && secondTokens.isDisjoint(with: firstTokens), "the second run carried a refreshed token")
        let sent = Self.requests(log).filter { $0["password"] is String }
        #expect(sent.allSatisfy { $0["subject"] as? String == "alice" && $0["user"] as? String == "oauth2" })

        // docker logout erases through the helper: the vault keeps the account.
        let logout = try docker(["logout", registry])
        #expect(logout.status == 0, "\(logout.standardOutput)\(logout.standardError)")
        let again = try docker(["manifest", "inspect", "--insecure", registry + "/team/app:1"])
        #expect(again.status == 0, "\(again.standardError)")

        let leaks = TokenConsumerSetup.files(under: [dockerConfig], containing: Array(tokens))
        #expect(leaks.isEmpty, "tokens found in \(leaks)")
    }

    @Test("the protocol's examples: get, not found, store, erase, list, version, errors on stdout")
    func protocolExamples() throws {
        let setup = try TokenConsumerSetup()
        defer { setup.remove() }
        try setup.writeConfig("""
            [credential.registry]
            url = "https://registry.example.com"
            account = "work"
            username = "alice"
            """)
        let helper = try ProgramPaths.built("docker-credential-passkey")
        func run(_ arguments: [String], _ input: String) throws -> ProcessResult {
            try ProcessResult.run(helper, arguments, standardInput: input, environment: try setup.environment(),
                                  scratch: setup.scratch, timeout: 60)
        }
        // docker writes the server as it names it: a bare host is https.
        for server in ["registry.example.com", "https://registry.example.com", "https://registry.example.com/v2/"] {
            let got = try run(["get"], server + "\n")
            #expect(got.status == 0, "\(server): \(got.standardOutput)\(got.standardError)")
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(got.standardOutput.utf8)) as? [String: String])
            #expect(answer["ServerURL"] == server)
            #expect(answer["Username"] == "alice")
            #expect(jwtClaims(answer["Secret"] ?? "")?["sub"] as? String == "alice")
        }
        for other in ["registry.example.com:5000", "http://registry.example.com", "registry.example.com.evil.test", "index.docker.io"] {
            let none = try run(["get"], other)
            #expect(none.status == 1 && none.standardOutput == "credentials not found in native keychain\n", "\(other): \(none.standardOutput)")
        }
        let empty = try run(["get"], "\n")
        #expect(empty.status == 1 && empty.standardOutput == "no credentials server URL\n")

        // store keeps nothing: succeeds for a mapped registry, refuses any other; erase leaves the vault.
        let stored = try run(["store"], #"{"ServerURL":"registry.example.com","Username":"alice","Secret":"typed-password"}"#)
        #expect(stored.status == 0 && stored.standardOutput.isEmpty, "\(stored.standardOutput)")
        let refused = try run(["store"], #"{"ServerURL":"elsewhere.example.com","Username":"bob","Secret":"typed-password"}"#)
        #expect(refused.status == 1 && refused.standardOutput.contains("stores no passwords"))
        #expect(try run(["erase"], "registry.example.com\n").status == 0)
        #expect(try run(["get"], "registry.example.com\n").status == 0, "erase did not touch the vault")
        #expect(setup.agent.filesContaining(["typed-password"]).isEmpty)

        let list = try run(["list"], "")
        #expect(list.standardOutput == #"{"https://registry.example.com":"alice"}"# + "\n")
        let version = try run(["version"], "")
        #expect(version.status == 0 && version.standardOutput.hasPrefix("docker-credential-passkey (passkey-agent) "))
        let unknown = try run(["bogus"], "")
        #expect(unknown.status == 1 && unknown.standardOutput == "Unknown credential action `bogus`\n")
        // --account (docker itself passes no arguments; a wrapper script may).
        let explicit = try run(["--account", "work", "get"], "ghcr.io\n")
        #expect(explicit.standardOutput.contains(#""Username":"oauth2""#), "\(explicit.standardOutput)")
    }
}
