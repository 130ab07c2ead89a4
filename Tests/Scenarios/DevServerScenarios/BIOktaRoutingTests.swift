import DevServer
import DevServerTestSupport
import Foundation
import Testing
import TestSupport

/// The Okta-like server's external IdP routing, with the real
/// passkey-devserver: `idp=0oa-bi-dev` → BI /authorize → the invoke URL →
/// the proof → Okta's callback → the app's redirect with Okta's own code,
/// which /v1/token exchanges with PKCE for tokens whose subject is the BI
/// identity's username.
@Suite(.ownThreads) struct BIOktaRoutingTests {
    func withProgram(_ arguments: [String] = [], _ body: (DevServerHarness, DevServerProcess) async throws -> Void) async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("devserver-bi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: base) }
        let server = try DevServerProcess(arguments: ["--listen", "127.0.0.1:0", "--log-level", "info",
                                                      "--oauth-client", "cli-bi=io.github.passkey-agent:/callback"] + arguments,
                                          directory: base.path, name: "bi")
        let h = try await server.waitForStartup()
        do { try await body(h, server) } catch {
            _ = try? await server.terminate()
            throw error
        }
        _ = try await server.terminate()
    }

    @Test func theWholeChainEndsInAnOktaCodeForTheBIUser() async throws {
        try await withProgram { h, server in
            let bi = BIHarness(h)
            let o = OAuthHarness(h)
            var key = SoftwareAuthenticator()
            try await bi.enroll("alice", key: &key)

            let (verifier, challenge) = OAuthHarness.pkce()
            let appRedirect = "io.github.passkey-agent:/callback"
            let query = OAuthHarness.authorizeQuery(challenge: challenge, redirect: appRedirect, scope: "openid profile",
                                                    changes: ["client_id": "cli-bi", "idp": "0oa-bi-dev"])
            // Okta sends the browser to BI as its relying party, with its own state and nonce.
            let okta = try await o.get("/oauth2/default/v1/authorize?\(query)")
            let (biAuthorize, toBI) = try OAuthHarness.location(okta)
            #expect(biAuthorize == bi.issuer + "/authorize")
            #expect(toBI["client_id"] == "bi-okta")
            #expect(toBI["redirect_uri"] == bi.origin + BIHarness.callback)
            #expect(toBI["scope"] == "openid")
            #expect(toBI["state"] != "state-123")
            #expect(toBI["nonce"] != "nonce-456")
            let reply = try await o.get(try bi.path(of: try #require(okta.headers["location"])))
            // BI sends it on to the app's invoke URL; the app proves the request.
            let jwt = try BIHarness.request(fromInvokeURL: try #require(reply.headers["location"], "\(reply)"))
            let prove = try BIHarness.prove(jwt)
            let proved = try await bi.postProof(prove, BIHarness.assertion(prove, key: &key))
            let callback = try #require(proved.json["redirect_url"] as? String, "\(proved)")
            // Okta's callback redeems BI's code and answers the app with its own.
            let (uri, answer) = try OAuthHarness.location(try await o.get(try bi.path(of: callback)))
            #expect(uri == appRedirect)
            #expect(answer["state"] == "state-123")
            #expect(answer["iss"] == o.issuer)
            let code = try #require(answer["code"])
            // Okta's callback is answered once.
            #expect(try await o.get(try bi.path(of: callback)).status == 400)

            let tokens = try await o.redeem(code: code, verifier: verifier, redirect: appRedirect, client: "cli-bi")
            #expect(tokens.status == 200, "\(tokens)")
            let (claims, _) = try await o.verifiedIDToken(try #require(tokens.json["id_token"] as? String))
            #expect(claims.sub.value == "alice")
            #expect(claims.aud.value == ["cli-bi"])
            #expect(claims.nonce == "nonce-456")
            let info = try await o.userInfo(try #require(tokens.json["access_token"] as? String))
            #expect(info.json["sub"] as? String == "alice")

            // No secret reaches the log: codes, the request JWT, the client secret.
            _ = try await server.terminate()
            for secret in [code, jwt, "bi-okta-secret", verifier, String(callback.split(separator: "=")[1].prefix(20))] {
                #expect(!server.stderrText.contains(secret))
            }
        }
    }

    @Test func unknownIdPsAndStrayCallbacksAreRefused() async throws {
        try await withProgram(["--bi-invocation", "manual", "--bi-deny-user", "mallory"]) { h, _ in
            let bi = BIHarness(h)
            let o = OAuthHarness(h)
            let (_, challenge) = OAuthHarness.pkce()
            let unknown = OAuthHarness.authorizeQuery(challenge: challenge, changes: ["idp": "0oa-unknown"])
            let (uri, answer) = try OAuthHarness.location(try await o.get("/oauth2/default/v1/authorize?\(unknown)"))
            #expect(uri == OAuthHarness.redirect)
            #expect(answer["error"] == "invalid_request")
            #expect(answer["state"] == "state-123")
            #expect(try await o.get(BIHarness.callback + "?code=abc&state=forged").status == 400)
            #expect(try await o.get(BIHarness.callback).status == 400)

            // The program's options: manual invocation, a suspended user whose
            // denial reaches the app as access_denied.
            var key = SoftwareAuthenticator()
            try await bi.enroll("mallory", key: &key)
            let query = OAuthHarness.authorizeQuery(challenge: challenge, changes: ["idp": "0oa-bi-dev"])
            let toBI = try #require(try await o.get("/oauth2/default/v1/authorize?\(query)").headers["location"])
            let manual = try await o.get(try bi.path(of: toBI))
            #expect(manual.status == 200, "\(manual)")
            let prove = try BIHarness.prove(try BIHarness.request(fromInvokeURL: try #require(manual.json["authenticate_url"] as? String)))
            BIHarness.expectError(try await bi.postProof(prove, BIHarness.assertion(prove, key: &key)), "policy_denied")
            // BI's error redirect to Okta's callback reaches the app in its terms.
            let state = try #require(URLComponents(string: toBI)?.queryItems?.first { $0.name == "state" }?.value)
            let (appURI, denied) = try OAuthHarness.location(try await o.get(BIHarness.callback + "?"
                + OAuthHarness.encode([("error", "access_denied"), ("state", state)])))
            #expect(appURI == OAuthHarness.redirect)
            #expect(denied["error"] == "access_denied")
            #expect(denied["state"] == "state-123")
        }
    }
}
