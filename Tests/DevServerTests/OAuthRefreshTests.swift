import DevServer
import DevServerTestSupport
import Foundation
import OAuthDevServer
import Testing
import TestSupport

/// Refresh tokens rotate; a replayed one revokes its family; scopes narrow
/// but never widen; revocation (RFC 7009) and expiry end tokens.
@Suite(.ownThreads) struct OAuthRefreshTests {
    @Test func refreshRotatesAndKeepsTheIDTokensIdentity() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let tokens = try await o.login()
            let first = try await o.verifiedIDToken(try #require(tokens["id_token"] as? String)).claims
            let refresh = try #require(tokens["refresh_token"] as? String)
            let reply = try await o.refresh(refresh)
            #expect(reply.status == 200, "\(reply)")
            let rotated = try #require(reply.json["refresh_token"] as? String)
            #expect(rotated != refresh)
            #expect(reply.json["scope"] as? String == "openid profile email offline_access")
            let again = try await o.verifiedIDToken(try #require(reply.json["id_token"] as? String)).claims
            #expect(again.iss == first.iss && again.sub == first.sub && again.aud == first.aud)
            #expect(again.auth_time == first.auth_time)
            #expect(again.nonce == nil, "OIDC Core §12.2: a refreshed ID token carries no nonce")
            #expect(try await o.userInfo(try #require(reply.json["access_token"] as? String)).status == 200)
            // The rotated token works in turn.
            #expect(try await o.refresh(rotated).status == 200)
        }
    }

    @Test func reusingARotatedTokenRevokesTheWholeFamily() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let tokens = try await o.login()
            let original = try #require(tokens["refresh_token"] as? String)
            let firstAccess = try #require(tokens["access_token"] as? String)
            let reply = try await o.refresh(original)
            let current = try #require(reply.json["refresh_token"] as? String)
            let currentAccess = try #require(reply.json["access_token"] as? String)

            OAuthHarness.expectError(try await o.refresh(original), "invalid_grant")
            OAuthHarness.expectError(try await o.refresh(current), "invalid_grant")
            #expect(try await o.userInfo(firstAccess).status == 401)
            #expect(try await o.userInfo(currentAccess).status == 401)
            // Another login is its own family and unaffected.
            let other = try await o.login()
            #expect(try await o.refresh(try #require(other["refresh_token"] as? String)).status == 200)
        }
    }

    @Test func scopeNarrowsOnRefreshButNeverWidens() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let tokens = try await o.login(scope: "openid email")
            let refresh = try #require(tokens["refresh_token"] as? String)
            // Widening is refused and spends nothing.
            OAuthHarness.expectError(try await o.refresh(refresh, scope: "openid email profile"), "invalid_scope")
            OAuthHarness.expectError(try await o.refresh(refresh, scope: "openid admin"), "invalid_scope")
            let narrowed = try await o.refresh(refresh, scope: "email")
            #expect(narrowed.status == 200, "\(narrowed)")
            #expect(narrowed.json["scope"] as? String == "email")
            #expect(narrowed.json["id_token"] == nil, "no openid, no ID token")
            let info = try await o.userInfo(try #require(narrowed.json["access_token"] as? String))
            #expect(info.status == 403)
            #expect(info.headers["www-authenticate"]?.contains("insufficient_scope") == true)
            // The rotated token still carries the whole original grant (RFC 6749 §6).
            let full = try await o.refresh(try #require(narrowed.json["refresh_token"] as? String))
            #expect(full.json["scope"] as? String == "openid email")
        }
    }

    @Test func revokingTheRefreshTokenEndsTheFamily() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let tokens = try await o.login()
            let refresh = try #require(tokens["refresh_token"] as? String)
            let access = try #require(tokens["access_token"] as? String)
            let reply = try await o.revoke(refresh, hint: "refresh_token")
            #expect(reply.status == 200)
            OAuthHarness.expectError(try await o.refresh(refresh), "invalid_grant")
            #expect(try await o.userInfo(access).status == 401)
            // Unknown tokens get 200 too (RFC 7009 §2.2).
            #expect(try await o.revoke("no-such-token").status == 200)
            OAuthHarness.expectError(try await o.post("/oauth2/default/v1/revoke", [("client_id", "cli")]), "invalid_request")
            OAuthHarness.expectError(try await o.post("/oauth2/default/v1/revoke", [("token", refresh)]), "invalid_client", status: 401)
        }
    }

    @Test func revokingAnAccessTokenLeavesTheRefreshTokenGood() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let tokens = try await o.login()
            let access = try #require(tokens["access_token"] as? String)
            #expect(try await o.revoke(access, hint: "access_token").status == 200)
            let info = try await o.userInfo(access)
            #expect(info.status == 401)
            #expect(info.headers["www-authenticate"]?.contains("error=\"invalid_token\"") == true)
            #expect(try await o.refresh(try #require(tokens["refresh_token"] as? String)).status == 200)
        }
    }

    @Test func accessTokensExpireAndForgedOnesAreRefused() async throws {
        try await DevServerHarness.with({ $0.oauth.accessTokenLifetime = .seconds(30) }) { h in
            let o = OAuthHarness(h)
            let tokens = try await o.login()
            #expect(tokens["expires_in"] as? Int == 30)
            let access = try #require(tokens["access_token"] as? String)
            #expect(try await o.userInfo(access).status == 200)
            // The signature covers the claims: a changed payload is refused.
            let parts = access.split(separator: ".").map(String.init)
            let forged = [parts[0], parts[1].dropLast(2) + "AA", parts[2]].joined(separator: ".")
            #expect(try await o.userInfo(forged).status == 401)
            #expect(try await o.userInfo("garbage").status == 401)
            let bare = try await o.get("/oauth2/default/v1/userinfo")
            #expect(bare.status == 401)
            #expect(bare.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
            // The ID token (RS256 or ES256, signed by this server) is not an access token.
            #expect(try await o.userInfo(try #require(tokens["id_token"] as? String)).status == 401)
            h.clock.advance(seconds: 31)
            #expect(try await o.userInfo(access).status == 401)
        }
    }

    /// `exp` is whole seconds; a token minted late in a second must still
    /// live the whole `expires_in` it was given (a 1 s token minted at
    /// x.95 s once died 50 ms later and failed a loaded test run).
    @Test func aTokenMintedLateInASecondLivesItsWholeLifetime() async throws {
        try await DevServerHarness.with({ $0.oauth.accessTokenLifetime = .seconds(1) }) { h in
            let o = OAuthHarness(h)
            h.clock.freeze(at: Date(timeIntervalSince1970: 1_800_000_000.95))
            let tokens = try await o.login()
            #expect(tokens["expires_in"] as? Int == 1)
            let access = try #require(tokens["access_token"] as? String)
            h.clock.advance(seconds: 0.9)
            #expect(try await o.userInfo(access).status == 200, "0.9 s into a 1 s lifetime")
            h.clock.advance(seconds: 1.1)
            #expect(try await o.userInfo(access).status == 401, "2 s after minting")
        }
    }

    @Test func aClientCannotRefreshOrRevokeAnotherClientsTokens() async throws {
        let other = try OAuthClientRegistration(argument: "other=http://127.0.0.1/callback")
        try await DevServerHarness.with({ $0.oauth.clients = [other] }) { h in
            let o = OAuthHarness(h)
            let tokens = try await o.login()
            let refresh = try #require(tokens["refresh_token"] as? String)
            let access = try #require(tokens["access_token"] as? String)
            OAuthHarness.expectError(try await o.refresh(refresh, client: "other"), "invalid_grant")
            for token in [refresh, access] {
                let reply = try await o.post("/oauth2/default/v1/revoke", [("client_id", "other"), ("token", token)])
                #expect(reply.status == 200, "RFC 7009: the answer reveals nothing")
            }
            #expect(try await o.userInfo(access).status == 200, "untouched by the other client")
            #expect(try await o.refresh(refresh).status == 200, "untouched by the other client")
        }
    }

    @Test func theTokenEndpointRefusesMalformedRequests() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let token = "/oauth2/default/v1/token"
            OAuthHarness.expectError(try await o.post(token, [("grant_type", "password"), ("client_id", "cli")]), "unsupported_grant_type")
            OAuthHarness.expectError(try await o.post(token, [("client_id", "cli")]), "invalid_request")
            OAuthHarness.expectError(try await o.post(token, [("grant_type", "refresh_token")]), "invalid_client", status: 401)
            OAuthHarness.expectError(try await o.post(token, [("grant_type", "refresh_token"), ("client_id", "nobody")]),
                                     "invalid_client", status: 401)
            OAuthHarness.expectError(try await o.post(token, [("grant_type", "refresh_token"), ("client_id", "cli"),
                                                             ("client_secret", "s")]), "invalid_client", status: 401)
            OAuthHarness.expectError(try await o.post(token, [("grant_type", "refresh_token"), ("client_id", "cli"),
                                                             ("client_id", "cli")]), "invalid_request")
            OAuthHarness.expectError(try await o.refresh("not-a-refresh-token"), "invalid_grant")
            let json = try await h.client.send("POST", token, json: ["grant_type": "refresh_token", "client_id": "cli"])
            OAuthHarness.expectError(json, "invalid_request")
            let huge = try await o.post(token, [("grant_type", "refresh_token"), ("client_id", "cli"),
                                                ("refresh_token", String(repeating: "a", count: 20_000))])
            OAuthHarness.expectError(huge, "invalid_request")
            let badEscape = try await h.client.send("POST", token, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                                    body: Array("grant_type=refresh_token&client_id=%zz".utf8))
            OAuthHarness.expectError(badEscape, "invalid_request")
        }
    }
}
