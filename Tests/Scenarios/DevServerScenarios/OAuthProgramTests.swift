import DevServerTestSupport
import Foundation
import Testing
import TestSupport

/// The authorization server's command-line options on the real
/// `passkey-devserver`: RS256 ID tokens, extra clients, lifetimes and device
/// intervals on the real clock, signing keys kept in --data-dir.
@Suite(.ownThreads) struct OAuthProgramTests {
    func withDirectory(_ body: (String) async throws -> Void) async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("devserver-oauth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: base) }
        try await body(base.path)
    }

    @Test func rs256IDTokensAndAPrivateUseSchemeClient() async throws {
        try await withDirectory { directory in
            let server = try DevServerProcess(arguments: [
                "--listen", "127.0.0.1:0", "--log-level", "warning", "--id-token-alg", "RS256",
                "--oauth-client", "com.example.app=com.example.app:/callback,https://app.example.com/cb",
            ], directory: directory, name: "rs256")
            let o = OAuthHarness(try await server.waitForStartup())
            #expect(server.startup["issuer"] as? String == o.issuer)

            let (verifier, challenge) = OAuthHarness.pkce()
            for redirect in ["com.example.app:/callback", "https://app.example.com/cb"] {
                let query = OAuthHarness.authorizeQuery(challenge: challenge, redirect: redirect,
                                                        changes: ["client_id": "com.example.app"])
                let (uri, answer) = try OAuthHarness.location(try await o.consent(query))
                #expect(uri == redirect)
                let reply = try await o.redeem(code: try #require(answer["code"]), verifier: verifier, redirect: redirect,
                                               client: "com.example.app")
                #expect(reply.status == 200, "\(reply)")
                let (claims, alg) = try await o.verifiedIDToken(try #require(reply.json["id_token"] as? String))
                #expect(alg == "RS256")
                #expect(claims.aud.value == ["com.example.app"])
                #expect(claims.iss.value == o.issuer)
                #expect(claims.nonce == "nonce-456")
                // Only cli gets a refresh token without offline_access; this request asked for it.
                #expect(reply.json["refresh_token"] is String)
            }
            // The loopback redirects belong to cli, not to this client.
            let query = OAuthHarness.authorizeQuery(challenge: challenge, changes: ["client_id": "com.example.app"])
            #expect(try await o.get("/oauth2/default/v1/authorize?\(query)").status == 400)
            // Nothing secret reaches the log.
            _ = try await server.terminate()
            #expect(!server.stderrText.contains(verifier))
            #expect(!server.stderrText.contains("code="))
        }
    }

    /// Lifetimes against the devserver's clock, which the test moves ahead
    /// through `--clock-file`: an access token and a device code expire when
    /// the clock passes them, and a refreshed token is live until it does —
    /// no sleep, and nothing that depends on how fast a loaded machine is.
    @Test func lifetimesOnTheDevserversClock() async throws {
        try await withDirectory { directory in
            let clock = directory + "/clock"
            func advance(_ seconds: Int) throws { try "\(seconds)".write(toFile: clock, atomically: true, encoding: .utf8) }
            let server = try DevServerProcess(arguments: [
                "--listen", "127.0.0.1:0", "--log-level", "warning", "--access-token-lifetime", "60",
                "--device-interval", "1", "--device-code-lifetime", "120", "--clock-file", clock,
            ], directory: directory, name: "short")
            let o = OAuthHarness(try await server.waitForStartup())
            let tokens = try await o.login()
            #expect(tokens["expires_in"] as? Int == 60)
            let access = try #require(tokens["access_token"] as? String)
            #expect(try await o.userInfo(access).status == 200, "live within its lifetime")

            let started = try await o.post("/oauth2/default/v1/device/authorize", [("client_id", "cli")])
            #expect(started.json["interval"] as? Int == 1)
            #expect(started.json["expires_in"] as? Int == 120)
            let deviceCode = try #require(started.json["device_code"] as? String)
            try advance(61)
            #expect(try await o.userInfo(access).status == 401, "expired 60 s after it was issued")
            try advance(121)
            let poll = try await o.post("/oauth2/default/v1/token", [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                                                                     ("client_id", "cli"), ("device_code", deviceCode)])
            OAuthHarness.expectError(poll, "expired_token")
            // A refresh gives a new access token, live for its own 60 s.
            let refreshed = try await o.refresh(try #require(tokens["refresh_token"] as? String))
            let fresh = try #require(refreshed.json["access_token"] as? String)
            #expect(fresh != access)
            #expect(refreshed.json["expires_in"] as? Int == 60)
            #expect(try await o.userInfo(fresh).status == 200, "a refreshed access token is live within its lifetime")
            try advance(182)
            #expect(try await o.userInfo(fresh).status == 401, "and expired after it")
            _ = try await server.terminate()
        }
    }

    @Test func signingKeysSurviveARestartWithADataDirectory() async throws {
        try await withDirectory { directory in
            let arguments = ["--listen", "127.0.0.1:0", "--log-level", "warning", "--data-dir", directory + "/data"]
            let first = try DevServerProcess(arguments: arguments, directory: directory, name: "first")
            let keys = try await OAuthHarness(try await first.waitForStartup()).get("/oauth2/default/v1/keys").text
            #expect(try await first.terminate().status == 0)
            let second = try DevServerProcess(arguments: arguments, directory: directory, name: "second")
            #expect(try await OAuthHarness(try await second.waitForStartup()).get("/oauth2/default/v1/keys").text == keys)
            _ = try await second.terminate()
        }
    }

    @Test func badOptionsAreRefused() async throws {
        try await withDirectory { directory in
            for (index, arguments) in [["--id-token-alg", "HS256"], ["--device-interval", "0"], ["--access-token-lifetime", "0"],
                                       ["--device-code-lifetime", "999999"], ["--oauth-client", "x=http://example.com/cb"],
                                       ["--oauth-client", "x=myapp:/cb"], ["--oauth-client", "cli=http://127.0.0.1/cb"],
                                       ["--oauth-client", "no-redirect"], ["--oauth-client", "x=http://127.0.0.1/cb#frag"]].enumerated() {
                let server = try DevServerProcess(arguments: ["--listen", "127.0.0.1:0"] + arguments, directory: directory,
                                                  name: "bad\(index)")
                let status = try await server.waitForExit()
                #expect(status == 64 || status == 78, "\(arguments): \(status)")
                #expect(!server.stderrText.isEmpty)
            }
        }
    }
}
