import Foundation
import Testing
import TestSupport

/// Debian's git clones and pushes over HTTP through `git-credential-passkey`
/// from a `git http-backend` that lets in only access tokens the devserver
/// issued (checked at its userinfo endpoint); the agent refreshes the token
/// between the two, and git writes it nowhere.
@Suite(.ownThreads) struct GitCredentialHelperTests {
    /// The JSON lines the server logged, one per request.
    static func requests(_ log: String) -> [[String: Any]] {
        TextFile.read(log).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test("clone then push with credential.helper=passkey: two devserver tokens, refreshed between, on no disk")
    func cloneAndPush() throws {
        let setup = try TokenConsumerSetup()
        defer { setup.remove() }
        let scratch = setup.scratch
        let serverRoot = scratch + "/served", home = scratch + "/git-home", log = scratch + "/server/requests.log"
        for directory in [serverRoot, home, scratch + "/server"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        var environment = try setup.environment([
            "HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "/bin/false",
            "GIT_AUTHOR_NAME": "Alice", "GIT_AUTHOR_EMAIL": "alice@example.org",
            "GIT_COMMITTER_NAME": "Alice", "GIT_COMMITTER_EMAIL": "alice@example.org"])
        environment["SSH_ASKPASS"] = nil
        func git(_ arguments: [String], in directory: String = scratch) throws -> ProcessResult {
            try ProcessResult.run("/usr/bin/git", ["-C", directory] + arguments, standardInput: nil,
                                  environment: environment, scratch: scratch, timeout: 120)
        }
        // The served repository, with one commit.
        try #require(try git(["init", "-q", "--bare", "-b", "main", serverRoot + "/repo.git"]).status == 0)
        try #require(try git(["config", "http.receivepack", "true"], in: serverRoot + "/repo.git").status == 0)
        let seed = scratch + "/seed"
        try #require(try git(["init", "-q", "-b", "main", seed]).status == 0)
        try "first\n".write(toFile: seed + "/README", atomically: true, encoding: .utf8)
        try #require(try git(["add", "README"], in: seed).status == 0)
        try #require(try git(["commit", "-q", "-m", "first"], in: seed).status == 0)
        try #require(try git(["push", "-q", serverRoot + "/repo.git", "main"], in: seed).status == 0)

        let (server, port) = try TokenConsumerSetup.startServer(
            "git_http_server.py", ["--root", serverRoot, "--userinfo", setup.provider.issuer + "/v1/userinfo", "--log", log],
            directory: scratch + "/server", name: "git-server")
        defer { _ = server.stop() }
        let url = "http://127.0.0.1:\(port)/repo.git"
        try setup.writeConfig("""
            [credential.local]
            url = "http://127.0.0.1:\(port)"
            account = "work"
            """)

        // Without the helper the server lets nobody in.
        let refused = try git(["ls-remote", url])
        #expect(refused.status != 0)
        #expect(Self.requests(log).allSatisfy { $0["subject"] is NSNull })

        let clone = scratch + "/clone"
        let cloned = try git(["-c", "credential.helper=passkey", "clone", "-q", url, clone])
        #expect(cloned.status == 0, "\(cloned.standardError)")
        #expect(TextFile.read(clone + "/README") == "first\n")
        let firstTokens = Set(Self.requests(log).compactMap { $0["password"] as? String })
        #expect(firstTokens.count == 1, "the clone used one token: \(firstTokens.count)")
        let first = try #require(firstTokens.first)
        #expect(jwtClaims(first)?["sub"] as? String == "alice")

        try "second\n".write(toFile: clone + "/README", atomically: true, encoding: .utf8)
        try #require(try git(["commit", "-q", "-am", "second"], in: clone).status == 0)
        let pushed = try git(["-c", "credential.helper=passkey", "push", "-q", "origin", "main"], in: clone)
        #expect(pushed.status == 0, "\(pushed.standardError)")
        let served = try git(["log", "-1", "--format=%s", "main"], in: serverRoot + "/repo.git")
        #expect(served.standardOutput == "second\n", "the push reached the server")

        // Tokens live 30 s and `get` asks for 60: the agent refreshed
        // between clone and push, and the push carried the new token.
        let requests = Self.requests(log)
        let pushTokens = Set(requests.filter { ($0["path"] as? String)?.contains("receive-pack") == true }
            .compactMap { $0["password"] as? String })
        #expect(pushTokens.count == 1)
        let second = try #require(pushTokens.first)
        #expect(second != first, "the push carried a refreshed token")
        #expect(requests.filter { $0["password"] is String }.allSatisfy { $0["subject"] as? String == "alice" },
                "every token git sent was one the devserver accepts")
        #expect(requests.compactMap { $0["user"] as? String }.allSatisfy { $0 == "oauth2" })

        // git kept the tokens in memory only: nothing in its HOME, the clone or the served repository.
        let leaks = TokenConsumerSetup.files(under: [home, clone, serverRoot], containing: [first, second])
        #expect(leaks.isEmpty, "tokens found in \(leaks)")
        #expect(setup.agent.filesContaining([first, second]).isEmpty)
    }

    @Test("the helper protocol: no match, no answer; store and erase change nothing; http only to this machine; --account")
    func protocolAnswers() throws {
        let setup = try TokenConsumerSetup()
        defer { setup.remove() }
        try setup.writeConfig("""
            [credential.team]
            url = "https://git.example.org/team"
            account = "work"
            username = "alice"
            [credential.broken]
            url = "git.example.net"
            account = "work"
            """)
        let helper = try ProgramPaths.built("git-credential-passkey")
        func run(_ arguments: [String], _ input: String) throws -> ProcessResult {
            try ProcessResult.run(helper, arguments, standardInput: input, environment: try setup.environment(),
                                  scratch: setup.scratch, timeout: 60)
        }
        // A path below the table's path, given with useHttpPath: the token, the configured user, its expiry.
        let answer = try run(["get"], "protocol=https\nhost=git.example.org\npath=team/app.git\nwwwauth[]=Basic realm=\"x\"\n\n")
        #expect(answer.status == 0, "\(answer.standardError)")
        let lines = answer.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "username=alice")
        let token = try #require(lines.first { $0.hasPrefix("password=") }?.dropFirst("password=".count))
        #expect(jwtClaims(String(token))?["sub"] as? String == "alice")
        let expiry = try #require(Int(lines.first { $0.hasPrefix("password_expiry_utc=") }?.dropFirst(20) ?? ""))
        #expect(abs(expiry - Int(Date().timeIntervalSince1970) - 30) < 60)

        // Other servers get no answer at all (git asks its next helper).
        for other in ["protocol=https\nhost=git.example.org\n\n",                                  // no path: not inside /team
                      "protocol=https\nhost=git.example.org\npath=teammate/x.git\n\n",             // a longer name, not a segment
                      "protocol=https\nhost=git.example.org.evil.test\npath=team/x.git\n\n",
                      "protocol=https\nhost=git.example.org:8443\npath=team/x.git\n\n",
                      "protocol=http\nhost=git.example.org\npath=team/x.git\n\n",
                      "protocol=https\nhost=git.example.org\npath=team/../other/x.git\n\n",    // not inside /team once squashed
                      "protocol=https\nhost=git.example.org\npath=team/%2E%2e/other/x.git\n\n"] {
            let none = try run(["get"], other)
            #expect(none.status == 0 && none.standardOutput.isEmpty, "\(other): \(none.standardOutput)")
        }
        // A table passkey cannot read is named, not silently skipped.
        let broken = try run(["get"], "protocol=https\nhost=git.example.net\n\n")
        #expect(broken.status == 0 && broken.standardOutput.isEmpty)
        #expect(broken.standardError.contains("[credential.broken] in config.toml names no server passkey can read"), "\(broken.standardError)")

        // store and erase read their input and change nothing: the vault still answers.
        #expect(try run(["store"], "protocol=https\nhost=git.example.org\nusername=alice\npassword=typed\n\n").standardOutput.isEmpty)
        #expect(try run(["erase"], "protocol=https\nhost=git.example.org\npath=team/x.git\n\n").status == 0)
        #expect(try run(["capability"], "\n").status == 0, "unknown operations are ignored")
        #expect(try run(["get"], "protocol=https\nhost=git.example.org\npath=team/app.git\n\n").standardOutput.contains("password="))
        #expect(!TextFile.read(setup.agent.harness.home + "/config/passkey-agent/config.toml").contains("typed"))

        // --account: any https server; plain http only to this machine.
        let explicit = try run(["--account", "work", "get"], "protocol=https\nhost=other.example.com\n\n")
        #expect(explicit.standardOutput.hasPrefix("username=oauth2\npassword="), "\(explicit.standardError)")
        let clear = try run(["--account", "work", "get"], "protocol=http\nhost=other.example.com\n\n")
        #expect(clear.status != 0 && !clear.standardOutput.contains("password="))
        #expect(clear.standardError.contains("only over https"))
    }
}
