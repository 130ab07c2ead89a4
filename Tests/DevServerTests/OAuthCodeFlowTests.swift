import DevServer
import DevServerTestSupport
import Foundation
import OAuthDevServer
import Testing
import TestSupport

/// The authorization code flow with PKCE through the consent form, and each
/// way a request is refused.
@Suite(.ownThreads) struct OAuthCodeFlowTests {
    @Test func codeFlowIssuesVerifiedTokensAndUserInfo() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            // The user's aliases give the ID token its name and email.
            #expect(try await h.secret("POST", "/alias", ["userId": "alice", "aliases": ["Alice", "alice@example.com"],
                                                         "hashing": false]).status == 204)
            let before = Int(Date().timeIntervalSince1970)
            let tokens = try await o.login()
            #expect(tokens["token_type"] as? String == "Bearer")
            #expect(tokens["expires_in"] as? Int == 3600)
            #expect(tokens["scope"] as? String == "openid profile email offline_access")
            #expect(tokens["refresh_token"] is String)
            let (claims, alg) = try await o.verifiedIDToken(try #require(tokens["id_token"] as? String))
            #expect(alg == "ES256")
            #expect(claims.iss.value == o.issuer)
            #expect(claims.aud.value == ["cli"])
            #expect(claims.sub.value == "alice")
            #expect(claims.nonce == "nonce-456")
            #expect(claims.name == "Alice")
            #expect(claims.email == "alice@example.com")
            #expect(claims.auth_time >= before - 1)

            let access = try #require(tokens["access_token"] as? String)
            let info = try await o.userInfo(access)
            #expect(info.status == 200, "\(info)")
            #expect(info.json["sub"] as? String == "alice")
            #expect(info.json["email"] as? String == "alice@example.com")
            #expect(try await o.post("/oauth2/default/v1/userinfo", [], headers: ["Authorization": "Bearer \(access)"]).status == 200)
        }
    }

    @Test func accessTokenIsAnOktaShapedES256JWT() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let tokens = try await o.login(scope: "openid")
            let parts = try #require(tokens["access_token"] as? String).split(separator: ".")
            #expect(parts.count == 3)
            let claims = try OAuthHarness.jsonSegment(parts[1])
            #expect(claims["iss"] as? String == o.issuer)
            #expect(claims["aud"] as? String == "api://default")
            #expect(claims["cid"] as? String == "cli")
            #expect(claims["scp"] as? [String] == ["openid"])
            #expect(claims["sub"] as? String == "alice")
            #expect(claims["jti"] is String)
            // iat is the second it was minted in, exp rounded up so the token
            // lives its whole hour: 3600 s apart, 3601 unless minted on the second.
            #expect((3600...3601).contains((claims["exp"] as? Int ?? 0) - (claims["iat"] as? Int ?? 0)))
            // The cli client gets a refresh token even without offline_access.
            #expect(tokens["refresh_token"] is String)
        }
    }

    @Test func passkeySignInApprovesWithItsVerifyTokenOnce() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            var key = SoftwareAuthenticator()
            _ = try await h.register(userId: "bob", with: &key)
            let verifyToken = try await h.signIn(["userId": "bob"], with: &key)
            let (verifier, challenge) = OAuthHarness.pkce()
            let query = OAuthHarness.authorizeQuery(challenge: challenge)
            let (_, answer) = try OAuthHarness.location(try await o.consent(query, [("verify_token", verifyToken), ("action", "allow")]))
            let reply = try await o.redeem(code: try #require(answer["code"]), verifier: verifier)
            let (claims, _) = try await o.verifiedIDToken(try #require(reply.json["id_token"] as? String))
            #expect(claims.sub.value == "bob")
            // The verify token was spent: it approves nothing a second time.
            let again = try await o.consent(query, [("verify_token", verifyToken), ("action", "allow")])
            #expect(again.status == 400)
            #expect(again.text.contains("already used"))
            let forged = try await o.consent(query, [("verify_token", "verify_AAAA"), ("action", "allow")])
            #expect(forged.status == 400)
        }
    }

    @Test func pkceIsRequiredPlainIsRefusedAndTheVerifierMustMatch() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let (verifier, challenge) = OAuthHarness.pkce()
            for changes: [String: String?] in [["code_challenge": nil], ["code_challenge_method": nil],
                                               ["code_challenge_method": "plain"], ["code_challenge": "short"]] {
                let query = OAuthHarness.authorizeQuery(challenge: challenge, changes: changes)
                let (uri, answer) = try OAuthHarness.location(try await o.get("/oauth2/default/v1/authorize?\(query)"))
                #expect(uri == OAuthHarness.redirect)
                #expect(answer["error"] == "invalid_request", "\(changes)")
                #expect(answer["state"] == "state-123")
                #expect(answer["iss"] == o.issuer)
                #expect(answer["code"] == nil)
            }
            // A wrong verifier is invalid_grant and spends the code.
            let code = try await o.authorize(challenge: challenge)
            OAuthHarness.expectError(try await o.redeem(code: code, verifier: OAuthHarness.pkce().verifier), "invalid_grant")
            OAuthHarness.expectError(try await o.redeem(code: code, verifier: verifier), "invalid_grant")
            // No verifier at all is a malformed request.
            let other = try await o.authorize(challenge: challenge)
            let reply = try await o.post("/oauth2/default/v1/token", [("grant_type", "authorization_code"), ("client_id", "cli"),
                                                                      ("code", other), ("redirect_uri", OAuthHarness.redirect)])
            OAuthHarness.expectError(reply, "invalid_request")
        }
    }

    @Test func loopbackRedirectsTakeAnyPortAndNothingElse() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let (verifier, challenge) = OAuthHarness.pkce()
            for redirect in ["http://127.0.0.1:1/callback", "http://127.0.0.1:65535/callback", "http://[::1]:8080/callback"] {
                let code = try await o.authorize(challenge: challenge, redirect: redirect)
                #expect(try await o.redeem(code: code, verifier: verifier, redirect: redirect).status == 200, "\(redirect)")
            }
            for redirect in ["http://127.0.0.1:8080/other", "http://localhost:8080/callback", "https://127.0.0.1:8080/callback",
                             "http://127.0.0.1.evil.example:8080/callback", "http://127.0.0.1@evil.example/callback",
                             "http://127.0.0.1:8080/callback#x", "http://127.0.0.1:65536/callback", "http://127.0.0.1:08080/callback",
                             "http://127.0.0.1:8080/callback?x=1", "http://evil.example/callback"] {
                let query = OAuthHarness.authorizeQuery(challenge: challenge, redirect: redirect)
                let reply = try await o.get("/oauth2/default/v1/authorize?\(query)")
                #expect(reply.status == 400, "\(redirect): \(reply.status)")
                #expect(reply.headers["location"] == nil, "never redirected to an unregistered URI")
                #expect(reply.headers["content-type"]?.hasPrefix("text/html") == true)
                #expect(try await o.consent(query).status == 400, "\(redirect)")
            }
            // The code is bound to the exact redirect URI it was issued for.
            let code = try await o.authorize(challenge: challenge, redirect: "http://127.0.0.1:5000/callback")
            OAuthHarness.expectError(try await o.redeem(code: code, verifier: verifier, redirect: "http://127.0.0.1:5001/callback"),
                                     "invalid_grant")
        }
    }

    @Test func badRequestsAreRefusedBeforeAndAfterTheRedirectIsTrusted() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let challenge = OAuthHarness.pkce().challenge
            // Before: a page, no redirect.
            for changes: [String: String?] in [["client_id": "nobody"], ["client_id": nil], ["redirect_uri": nil]] {
                let reply = try await o.get("/oauth2/default/v1/authorize?\(OAuthHarness.authorizeQuery(challenge: challenge, changes: changes))")
                #expect(reply.status == 400, "\(changes)")
                #expect(reply.headers["location"] == nil)
            }
            let repeated = OAuthHarness.authorizeQuery(challenge: challenge) + "&client_id=cli"
            #expect(try await o.get("/oauth2/default/v1/authorize?\(repeated)").status == 400)
            // After: an error at the client's redirect URI, with iss.
            let cases: [([String: String?], String)] = [
                (["state": nil], "invalid_request"), (["response_type": "token"], "unsupported_response_type"),
                (["scope": "openid admin"], "invalid_scope"), (["scope": nil], "invalid_request"),
                (["response_mode": "fragment"], "invalid_request"), (["prompt": "none"], "login_required"),
                (["nonce": String(repeating: "n", count: 600)], "invalid_request"),
            ]
            for (changes, error) in cases {
                let query = OAuthHarness.authorizeQuery(challenge: challenge, changes: changes)
                let (uri, answer) = try OAuthHarness.location(try await o.get("/oauth2/default/v1/authorize?\(query)"))
                #expect(uri == OAuthHarness.redirect)
                #expect(answer["error"] == error, "\(changes)")
                #expect(answer["iss"] == o.issuer)
                #expect(answer["state"] == (changes.keys.contains("state") ? nil : "state-123"))
            }
        }
    }

    @Test func theSignInPageOffersAPasskeyAndTheLabelledShortcutAndEscapesWhatItShows() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let query = OAuthHarness.authorizeQuery(challenge: OAuthHarness.pkce().challenge,
                                                    changes: ["login_hint": "<script>alert(1)</script>"])
            let page = try await o.get("/oauth2/default/v1/authorize?\(query)")
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(page.headers["content-security-policy"]?.contains("default-src 'none'") == true)
            #expect(page.text.contains("name=\"verify_token\""))
            #expect(page.text.contains("name=\"user\""))
            #expect(page.text.contains("DEVELOPMENT SHORTCUT"))
            #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(!page.text.contains("<script>"))
            let activate = try await o.get("/activate?user_code=%3Cb%3E")
            #expect(activate.status == 200)
            #expect(activate.text.components(separatedBy: "name=\"user_code\"").count == 3, "in both forms")
            #expect(!activate.text.contains("<b><"))
        }
    }

    @Test func denyAnswersAccessDenied() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let query = OAuthHarness.authorizeQuery(challenge: OAuthHarness.pkce().challenge)
            let (_, answer) = try OAuthHarness.location(try await o.consent(query, [("user", "alice"), ("action", "deny")]))
            #expect(answer["error"] == "access_denied")
            #expect(answer["state"] == "state-123")
            #expect(answer["iss"] == o.issuer)
            #expect(answer["code"] == nil)
            #expect(try await o.consent(query, [("user", "alice"), ("action", "maybe")]).status == 400)
            #expect(try await o.consent(query, [("action", "allow")]).status == 400, "allow names nobody")
        }
    }

    @Test func aReusedCodeRevokesWhatItIssued() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let (verifier, challenge) = OAuthHarness.pkce()
            let code = try await o.authorize(challenge: challenge)
            let first = try await o.redeem(code: code, verifier: verifier)
            #expect(first.status == 200)
            let access = try #require(first.json["access_token"] as? String)
            let refresh = try #require(first.json["refresh_token"] as? String)
            #expect(try await o.userInfo(access).status == 200)

            OAuthHarness.expectError(try await o.redeem(code: code, verifier: verifier), "invalid_grant")
            let info = try await o.userInfo(access)
            #expect(info.status == 401)
            #expect(info.headers["www-authenticate"]?.contains("error=\"invalid_token\"") == true)
            OAuthHarness.expectError(try await o.refresh(refresh), "invalid_grant")
        }
    }

    @Test func codesExpireAfterSixtySecondsAndBelongToTheirClient() async throws {
        try await DevServerHarness.with({ $0.oauth.clients = [try! OAuthClientRegistration(argument: "other=http://127.0.0.1/callback")] }) { h in
            let o = OAuthHarness(h)
            let (verifier, challenge) = OAuthHarness.pkce()
            let code = try await o.authorize(challenge: challenge)
            h.clock.advance(seconds: 61)
            OAuthHarness.expectError(try await o.redeem(code: code, verifier: verifier), "invalid_grant")
            let another = try await o.authorize(challenge: challenge)
            OAuthHarness.expectError(try await o.redeem(code: another, verifier: verifier, client: "other"), "invalid_grant")
        }
    }
}
