import DevServer
import DevServerBase
import DevServerTestSupport
import Foundation
import Testing
import TestSupport
import WebAuthn

/// The real executable: its start-up line, `--data-dir` across a restart,
/// graceful SIGTERM, and the data directory's lock.
@Suite(.ownThreads) struct PersistenceTests {
    @Test func dataDirectorySurvivesARestart() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("devserver-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: base) }
        let dataDirectory = base.appendingPathComponent("data").path
        let arguments = ["--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--rp-id", "localhost",
                         "--origin", "https://localhost", "--log-level", "warning"]

        // First run: register, sign in, redeem one verify token, keep another.
        let first = try DevServerProcess(arguments: arguments, directory: base.path, name: "first")
        let h1 = try await first.waitForStartup()
        #expect(Set(first.startup.keys) == ["apiUrl", "apiKey", "apiSecret", "rpId", "origins", "issuer"])
        #expect(first.startup["origins"] as? [String] == ["https://localhost"])
        var key = SoftwareAuthenticator()
        let registered = try await h1.register(userId: "ada", with: &key, ["aliases": ["ada@example.com"]])
        #expect(try await h1.verify(registered).status == 200)
        let unredeemed = try await h1.signIn(["alias": "ada@example.com"], with: &key)

        // The secret lives in a 0600 file in a 0700 directory.
        let directoryMode = try FileManager.default.attributesOfItem(atPath: dataDirectory)[.posixPermissions] as? Int
        let fileMode = try FileManager.default.attributesOfItem(atPath: dataDirectory + "/devserver.json")[.posixPermissions] as? Int
        #expect(directoryMode == 0o700)
        #expect(fileMode == 0o600)

        // A second server cannot take the same directory.
        let intruder = try DevServerProcess(arguments: arguments, directory: base.path, name: "intruder")
        #expect(try await intruder.waitForExit() != 0)
        #expect(intruder.stderrText.contains("in use"), "\(intruder.stderrText)")

        let (status, laterOutput) = try await first.terminate()
        #expect(status == 0, "SIGTERM shuts down gracefully; stderr: \(first.stderrText)")
        #expect(laterOutput.isEmpty, "stdout carries exactly one line")

        // Second run: same keys, same users, counters and spent tokens.
        let second = try DevServerProcess(arguments: arguments, directory: base.path, name: "second")
        let h2 = try await second.waitForStartup()
        #expect(h2.apiKey == h1.apiKey)
        #expect(h2.apiSecret == h1.apiSecret)
        let credentials = try #require(try await h2.secret("GET", "/credentials/list?userId=ada").json["values"] as? [[String: Any]])
        #expect(credentials.count == 1)
        #expect(credentials.first?["signatureCounter"] as? Int == 1)
        expectProblem(try await h2.verify(registered), status: 403, code: "token_already_used")
        let late = try await h2.verify(unredeemed)
        #expect(late.status == 200 && late.json["userId"] as? String == "ada", "\(late)")
        // The alias and the credential still sign in, and the counter moves on.
        _ = try await h2.signIn(["alias": "ada@example.com"], with: &key)
        let after = try #require(try await h2.secret("GET", "/credentials/list?userId=ada").json["values"] as? [[String: Any]])
        #expect(after.first?["signatureCounter"] as? Int == 2)
        let (secondStatus, _) = try await second.terminate()
        #expect(secondStatus == 0)
        #expect(!first.stderrText.contains(h1.apiSecret) && !second.stderrText.contains(h1.apiSecret), "logs never hold the secret")
    }

    /// In-process, as `passkey demo` runs it: `shutdown()` frees the directory for the next start.
    @Test func inProcessRestartReusesTheDirectory() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("devserver-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        var secrets: [String] = []
        for _ in 0..<2 {
            try await DevServerHarness.with({ $0.dataDirectory = base.path }) { h in
                secrets.append(h.apiSecret)
                await #expect(throws: DevServerError.dataDirectoryInUse(path: base.path)) {
                    _ = try await DevServer.start(DevServerConfiguration(dataDirectory: base.path))
                }
            }
        }
        #expect(secrets.count == 2 && secrets[0] == secrets[1])
    }

    @Test func withoutADataDirectoryKeysAreFreshEachStart() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("devserver-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: base) }
        var secrets: [String] = []
        for run in 0..<2 {
            let server = try DevServerProcess(arguments: ["--listen", "127.0.0.1:0", "--rp-id", "example.com"],
                                              directory: base.path, name: "\(run)")
            let h = try await server.waitForStartup()
            #expect(server.startup["rpId"] as? String == "example.com")
            #expect(server.startup["origins"] as? [String] == ["https://example.com"])
            secrets.append(h.apiSecret)
            #expect(try await server.terminate().status == 0)
        }
        #expect(secrets[0] != secrets[1])
    }

    @Test func badArgumentsExitNonZeroWithOneLine() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("devserver-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: base) }
        let server = try DevServerProcess(arguments: ["--listen", "0.0.0.0:0"], directory: base.path, name: "log")
        #expect(try await server.waitForExit() != 0)
        #expect(server.stderrText.contains("loopback"), "\(server.stderrText)")
    }
}
