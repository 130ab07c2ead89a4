import DevServer
import DevServerTestSupport
import Foundation
import JWTKit
import Testing
import TestSupport
import WebAuthn

/// The proof (our protocol: a WebAuthn assertion over the request's nonce)
/// and each way it is refused, then BI's token endpoint for its OIDC client.
@Suite(.ownThreads) struct BIProveTests {
    @Test func aGoodProofRedirectsWithACodeOnce() async throws {
        try await DevServerHarness.with { h in
            let bi = BIHarness(h)
            var key = SoftwareAuthenticator()
            try await bi.enroll("alice", key: &key)
            let prove = try BIHarness.prove(try await bi.requestJWT())
            let credential = BIHarness.assertion(prove, key: &key)
            let reply = try await bi.postProof(prove, credential)
            #expect(reply.status == 200, "\(reply)")
            let redirect = try #require(reply.json["redirect_url"] as? String)
            let components = try #require(URLComponents(string: redirect))
            #expect(redirect.hasPrefix(bi.origin + BIHarness.callback + "?code="))
            #expect(components.queryItems?.first { $0.name == "state" }?.value == "okta-state")
            // The same transaction, even with the same good assertion, is proved once.
            BIHarness.expectError(try await bi.postProof(prove, credential), "transaction_used")
        }
    }

    @Test func eachBadProofIsRefusedWithItsCode() async throws {
        try await DevServerHarness.with { h in
            let bi = BIHarness(h)
            var key = SoftwareAuthenticator()
            try await bi.enroll("alice", key: &key)

            var tampering = SoftwareAuthenticator.Tampering()
            tampering.challenge = Array(repeating: 7, count: 32)
            var prove = try BIHarness.prove(try await bi.requestJWT())
            let wrongChallenge = try await bi.postProof(prove, BIHarness.assertion(prove, key: &key, tampering: tampering))
            BIHarness.expectError(wrongChallenge, "invalid_signature")
            #expect((wrongChallenge.json["error_description"] as? String)?.contains("challenge") == true, "\(wrongChallenge)")

            prove = try BIHarness.prove(try await bi.requestJWT())
            let wrongOrigin = try await bi.postProof(prove, BIHarness.assertion(prove, key: &key, origin: "https://evil.example"))
            BIHarness.expectError(wrongOrigin, "invalid_signature")
            #expect((wrongOrigin.json["error_description"] as? String)?.contains("origin") == true, "\(wrongOrigin)")

            tampering = SoftwareAuthenticator.Tampering()
            tampering.rpId = "evil.example"
            prove = try BIHarness.prove(try await bi.requestJWT())
            BIHarness.expectError(try await bi.postProof(prove, BIHarness.assertion(prove, key: &key, tampering: tampering)),
                                  "invalid_signature")

            // A counter that does not move on is a cloned key (after a good proof stored one).
            prove = try BIHarness.prove(try await bi.requestJWT())
            #expect(try await bi.postProof(prove, BIHarness.assertion(prove, key: &key)).status == 200)
            tampering = SoftwareAuthenticator.Tampering()
            tampering.signCount = 1
            prove = try BIHarness.prove(try await bi.requestJWT())
            let counter = try await bi.postProof(prove, BIHarness.assertion(prove, key: &key, tampering: tampering))
            BIHarness.expectError(counter, "invalid_signature")
            #expect((counter.json["error_description"] as? String)?.contains("signCount") == true, "\(counter)")

            prove = try BIHarness.prove(try await bi.requestJWT())
            BIHarness.expectError(try await bi.postProof(prove, BIHarness.assertion(prove, key: &key), jti: "not-the-jti"),
                                  "invalid_request")

            // A key never bound in this realm.
            var stranger = SoftwareAuthenticator()
            stranger.userHandle = Array("nobody".utf8)
            prove = try BIHarness.prove(try await bi.requestJWT())
            BIHarness.expectError(try await bi.postProof(prove, BIHarness.assertion(prove, key: &stranger)), "credential_not_found")

            // Expired: the clock passes the transaction's 300 s.
            prove = try BIHarness.prove(try await bi.requestJWT())
            h.clock.advance(seconds: 301)
            BIHarness.expectError(try await bi.postProof(prove, BIHarness.assertion(prove, key: &key)), "transaction_expired")
        }
    }

    @Test func aSuspendedIdentityIsDeniedByPolicy() async throws {
        try await DevServerHarness.with({ $0.bi.deniedUsers = ["mallory"] }) { h in
            let bi = BIHarness(h)
            var key = SoftwareAuthenticator()
            try await bi.enroll("mallory", key: &key)
            let prove = try BIHarness.prove(try await bi.requestJWT())
            let reply = try await bi.postProof(prove, BIHarness.assertion(prove, key: &key))
            BIHarness.expectError(reply, "policy_denied")
            #expect(reply.status == 403)
        }
    }

    @Test func theTokenEndpointRedeemsACodeOnceForItsConfidentialClient() async throws {
        try await DevServerHarness.with { h in
            let bi = BIHarness(h)
            var key = SoftwareAuthenticator()
            try await bi.enroll("alice", key: &key)
            let prove = try BIHarness.prove(try await bi.requestJWT(nonce: "n-123"))
            let redirect = try #require(try await bi.postProof(prove, BIHarness.assertion(prove, key: &key)).json["redirect_url"] as? String)
            let code = try #require(URLComponents(string: redirect)?.queryItems?.first { $0.name == "code" }?.value)
            let callback = bi.origin + BIHarness.callback
            let o = OAuthHarness(h)
            func redeem(_ items: [(String, String)], basic: String? = nil) async throws -> LoopbackHTTPClient.Reply {
                let headers = basic.map { ["Authorization": "Basic " + Data($0.utf8).base64EncodedString()] } ?? [:]
                return try await o.post(BIHarness.app + "/token", items, headers: headers)
            }
            let form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", callback)]
            OAuthHarness.expectError(try await redeem(form, basic: "bi-okta:wrong"), "invalid_client", status: 401)
            OAuthHarness.expectError(try await redeem(form + [("client_id", "bi-okta")]), "invalid_client", status: 401)
            let reply = try await redeem(form, basic: "bi-okta:bi-okta-secret")
            #expect(reply.status == 200, "\(reply)")
            #expect(reply.json["token_type"] as? String == "Bearer")
            let jwks = try await h.client.send("GET", BIHarness.app + "/.well-known/jwks.json")
            let keys = JWTKeyCollection()
            try await keys.add(jwksJSON: jwks.text)
            let claims = try await keys.verify(try #require(reply.json["id_token"] as? String), as: TestIDToken.self)
            #expect(claims.iss.value == bi.issuer)
            #expect(claims.aud.value == ["bi-okta"])
            #expect(claims.sub.value == "alice")
            #expect(claims.nonce == "n-123")
            // Single use, client_secret_post too.
            OAuthHarness.expectError(try await redeem(form + [("client_id", "bi-okta"), ("client_secret", "bi-okta-secret")]),
                                     "invalid_grant")
        }
    }
}
