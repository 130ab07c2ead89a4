import Passwordless
import Foundation
import HTTPTransport
import Testing
import TestSupport

/// `passkey register` and `passkey signin` against a running
/// `passkey-devserver`, with a backend-style client on the secret API.
@Suite(.ownThreads) struct PasswordlessCeremonyTests {
    /// A devserver process, its keys, and a backend speaking its secret API.
    final class Fixture {
        let harness: AgentHarness
        let server: DevServerProgram
        let apiURL: String, apiKey: String, apiSecret: String
        let backend: PasswordlessBackend

        init(extraEnvironment: [String: String] = [:]) throws {
            harness = try AgentHarness(extraEnvironment: extraEnvironment)
            server = try DevServerProgram(arguments: ["--listen", "127.0.0.1:0", "--rp-id", "example.org", "--log-level", "error"],
                                          environment: harness.environment, directory: harness.home, name: "devserver")
            let line = try server.waitForStartupLine()
            let startup = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            apiURL = try #require(startup["apiUrl"] as? String)
            apiKey = try #require(startup["apiKey"] as? String)
            apiSecret = try #require(startup["apiSecret"] as? String)
            backend = PasswordlessBackend(apiURL: apiURL, apiSecret: apiSecret, transport: HTTPTransport())
        }

        deinit { server.process.stop() }

        var serverArguments: [String] {
            ["--api-url", apiURL, "--api-key", apiKey, "--rp-id", "example.org", "--origin", "https://example.org",
             "--device", "virtual"]
        }

        func passkey(_ arguments: [String], extra: [String] = []) throws -> ProcessResult {
            try harness.passkey(arguments + serverArguments + extra)
        }

        func registerToken(user: String, alias: String, expiresAt: String? = nil) async throws -> String {
            try await backend.registerToken(.init(userId: user, username: alias, aliases: [alias], expiresAt: expiresAt))
        }
    }

    @Test func registerThenSignInThreeWaysEachTokenVerifiesOnce() async throws {
        let fixture = try Fixture()
        let token = try await fixture.registerToken(user: "user-42", alias: "carol@example.org")
        let registered = try fixture.passkey(["register", "--token", token, "--nickname", "work key", "--json"])
        #expect(registered.status == 0, "\(registered.standardError)")
        let registration = try #require(try JSONSerialization.jsonObject(with: Data(registered.standardOutput.utf8)) as? [String: Any])
        #expect(registration["nickname"] as? String == "work key")
        #expect(registration["residentKey"] as? Bool == true)
        let verified = try await fixture.backend.verify(token: try #require(registration["token"] as? String))
        #expect(verified.userId == "user-42")
        #expect(verified.type == "passkey_register")

        for way in [["--alias", "carol@example.org"], ["--user-id", "user-42"], ["--discoverable"]] {
            let signedIn = try fixture.passkey(["signin"] + way)
            #expect(signedIn.status == 0, "\(way): \(signedIn.standardError)")
            let verifyToken = signedIn.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(verifyToken.hasPrefix("verify_"))
            let check = try await fixture.backend.verify(token: verifyToken)
            #expect(check.userId == "user-42", "\(way)")
            #expect(check.type == "passkey_signin")
            // Only once.
            await #expect(throws: PasswordlessError.self) { try await fixture.backend.verify(token: verifyToken) }
        }
    }

    @Test func bogusAndExpiredRegisterTokensNameTheServersCode() async throws {
        let fixture = try Fixture()
        let bogus = try fixture.passkey(["register", "--token", "register_AAAA"])
        #expect(bogus.status == 8)
        #expect(bogus.standardError.contains("invalid_token") || bogus.standardError.contains("invalid_token_format"))

        let expired = try await fixture.registerToken(user: "u", alias: "u@example.org", expiresAt: "2020-01-01T00:00:00Z")
        let late = try fixture.passkey(["register", "--token", expired, "--json"])
        #expect(late.status == 8)
        let error = try #require((try JSONSerialization.jsonObject(with: Data(late.standardOutput.utf8)) as? [String: Any])?["error"] as? [String: Any])
        #expect(error["kind"] as? String == "server_error")
        #expect(error["errorCode"] as? String == "expired_token")
        #expect((error["message"] as? String)?.contains("expired") == true)
    }

    @Test func severalDiscoverableAccountsNeedAChoice() async throws {
        let fixture = try Fixture()
        for (user, alias) in [("u-1", "dave@example.org"), ("u-2", "erin@example.org")] {
            let token = try await fixture.registerToken(user: user, alias: alias)
            #expect(try fixture.passkey(["register", "--token", token]).status == 0)
        }
        let ambiguous = try fixture.passkey(["signin", "--discoverable"])
        #expect(ambiguous.status == 4)
        #expect(ambiguous.standardError.contains("--user"))
        #expect(ambiguous.standardError.contains("dave@example.org") && ambiguous.standardError.contains("erin@example.org"))

        let chosen = try fixture.passkey(["signin", "--discoverable", "--user", "erin@example.org"])
        #expect(chosen.status == 0, "\(chosen.standardError)")
        let check = try await fixture.backend.verify(token: chosen.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(check.userId == "u-2")
    }

    @Test func settingsAndNetworkFailuresAreClear() throws {
        let harness = try AgentHarness()
        let noKey = try harness.passkey(["signin", "--discoverable", "--rp-id", "example.org", "--device", "virtual"])
        #expect(noKey.status == 11)
        #expect(noKey.standardError.contains("--api-key"))
        let nowhere = try harness.passkey(["signin", "--discoverable", "--rp-id", "example.org", "--api-key", "app:public:00",
                                           "--api-url", "http://127.0.0.1:9", "--device", "virtual"])
        #expect(nowhere.status == 9)
        #expect(nowhere.standardError.contains("http://127.0.0.1:9/signin/begin"))
        let both = try harness.passkey(["signin", "--alias", "a", "--user-id", "b"])
        #expect(both.status == 64)
    }

    @Test func throughTheAgentTheResultIsTheSame() async throws {
        let fixture = try Fixture()
        try fixture.harness.start()
        let token = try await fixture.registerToken(user: "agent-user", alias: "frank@example.org")
        let registered = try fixture.passkey(["register", "--token", token])
        #expect(registered.status == 0, "\(registered.standardError)")
        let signedIn = try fixture.passkey(["signin", "--alias", "frank@example.org"])
        #expect(signedIn.status == 0, "\(signedIn.standardError)")
        let check = try await fixture.backend.verify(token: signedIn.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(check.userId == "agent-user")
        let log = fixture.harness.process?.standardError ?? ""
        #expect(log.contains("passkey.register") && log.contains("passkey.signin"), "both ran in the agent")
    }

    @Test func theDemoRunsGreen() throws {
        let harness = try AgentHarness()
        let demo = try harness.passkey(["demo"], timeout: 180)
        #expect(demo.status == 0, "\(demo.standardError)")
        // Every chapter ran and ended with its verified line (a failed check ends the demo with an error instead).
        for chapter in 1...Self.demoChapters {
            #expect(demo.standardOutput.contains("━━ Chapter \(chapter):"), "missing chapter \(chapter)")
        }
        #expect(demo.standardOutput.components(separatedBy: "✔ Verified:").count == Self.demoChapters + 1)
        for step in ["register_", "success, userId demo-user", "token_already_used", "hmac-secret",
                     "Signed in to", "the old refresh token was refused (invalid_grant)", "exit 7", "Bound a passkey for Alice", "the demo answered OK, as the person",
                     "Okta's tokens for alice are in the vault", "bob enrolled the key through IDX",
                     "a wrong PIN left 2 tries", "over pcsc:Virtual PCD 00 00", "Next, on your own machine:"] {
            #expect(demo.standardOutput.contains(step), "missing: \(step)")
        }
    }

    static let demoChapters = 7

    @Test func theDemoWithoutTheCardSaysWhatWouldRun() throws {
        let harness = try AgentHarness()
        let demo = try harness.passkey(["demo", "--no-card"], timeout: 180)
        #expect(demo.status == 0, "\(demo.standardError)")
        // Chapter 7 cannot run without the card: one line says what would run and how to enable it, and no verified line.
        #expect(demo.standardOutput.components(separatedBy: "✔ Verified:").count == Self.demoChapters)
        #expect(demo.standardOutput.contains("skipped (--no-card): it would run `passkey card setup`"))
        #expect(demo.standardOutput.contains("skipped (--no-card): it would run `passkey devices`"))
        #expect(demo.standardOutput.contains("sudo apt install pcscd vsmartcard-vpcd"))
        #expect(!demo.standardOutput.contains("a wrong PIN left 2 tries"))
    }

    @Test func oneDemoChapterRunsAlone() throws {
        let harness = try AgentHarness()
        let demo = try harness.passkey(["demo", "--chapter", "4"], timeout: 120)
        #expect(demo.status == 0, "\(demo.standardError)")
        #expect(demo.standardOutput.contains("━━ Chapter 4:"))
        #expect(!demo.standardOutput.contains("━━ Chapter 3:"), "chapter 3's login ran quietly")
        #expect(demo.standardOutput.contains("✔ Verified: while locked"))
        let wrong = try harness.passkey(["demo", "--chapter", "9"])
        #expect(wrong.status != 0)
        #expect(wrong.standardError.contains("no chapter 9"))
    }
}
