import Base64
import DevServer
import DevServerTestSupport
import Foundation
import JWTKit
import Testing
import TestSupport
import WebAuthn

/// The Beyond-Identity-like IdP's discovery, JWKS and /authorize: the request
/// JWT's shape and signature as an app checks them, and manual invocation.
@Suite(.ownThreads) struct BIRequestTests {
    /// The request JWT's claims a verifier reads (jwt-kit checks the signature).
    struct RequestClaims: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var exp: ExpirationClaim
        var nbf: NotBeforeClaim
        var jti: IDClaim
        var verb: String

        func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
            try nbf.verifyNotBefore()
        }
    }

    @Test func discoveryAndJWKSDescribeTheApplication() async throws {
        try await DevServerHarness.with { h in
            let bi = BIHarness(h)
            let discovery = try await h.client.send("GET", BIHarness.app + "/.well-known/openid-configuration")
            #expect(discovery.status == 200, "\(discovery)")
            #expect(discovery.json["issuer"] as? String == bi.issuer)
            #expect(discovery.json["authorization_endpoint"] as? String == bi.issuer + "/authorize")
            #expect(discovery.json["token_endpoint"] as? String == bi.issuer + "/token")
            #expect(discovery.json["jwks_uri"] as? String == bi.issuer + "/.well-known/jwks.json")
            let jwks = try await h.client.send("GET", BIHarness.app + "/.well-known/jwks.json")
            let keys = try #require(jwks.json["keys"] as? [[String: Any]])
            #expect(keys.count == 1)
            #expect(keys.first?["alg"] as? String == "RS256")
            #expect(keys.first?["use"] as? String == "sig")
            #expect((keys.first?["kid"] as? String)?.isEmpty == false)
        }
    }

    @Test func authorizeRedirectsToTheInvokeURLWithASignedRequest() async throws {
        try await DevServerHarness.with { h in
            let bi = BIHarness(h)
            var key = SoftwareAuthenticator()
            try await bi.enroll("alice", key: &key)
            let before = Int(Date().timeIntervalSince1970)
            let jwt = try await bi.requestJWT()

            let header = try OAuthHarness.jsonSegment(jwt.split(separator: ".")[0])
            #expect(header["typ"] as? String == "JWT")
            #expect(header["alg"] as? String == "RS256")
            #expect(header["jku"] as? String == bi.issuer + "/.well-known/jwks.json")
            let jwks = try await h.client.send("GET", BIHarness.app + "/.well-known/jwks.json")
            let kid = try #require((jwks.json["keys"] as? [[String: Any]])?.first?["kid"] as? String)
            #expect(header["kid"] as? String == kid)
            // The signature verifies against the published JWKS.
            let collection = JWTKeyCollection()
            try await collection.add(jwksJSON: jwks.text)
            let verified = try await collection.verify(jwt, as: RequestClaims.self)
            #expect(verified.iss.value == bi.issuer)
            #expect(verified.verb == "authenticate")
            // A changed payload does not.
            var parts = jwt.split(separator: ".").map(String.init)
            var tampered = try BIHarness.claims(jwt)
            tampered["verb"] = "bind"
            parts[1] = OAuthHarness.base64url(try JSONSerialization.data(withJSONObject: tampered))
            await #expect(throws: (any Error).self) { try await collection.verify(parts.joined(separator: "."), as: RequestClaims.self) }

            let claims = try BIHarness.claims(jwt)
            let iat = try #require(claims["iat"] as? Int)
            #expect(iat >= before - 1)
            #expect(claims["exp"] as? Int == iat + 300)
            #expect(claims["nbf"] as? Int == iat - 60)
            #expect((claims["aud"] as? [Any])?.isEmpty == true)
            #expect(UUID(uuidString: try #require(claims["jti"] as? String)) != nil)
            #expect(UUID(uuidString: try #require(claims["cid"] as? String)) != nil)
            let app = try #require(claims["app"] as? [String: Any])
            #expect(app["id"] as? String == "a1")
            #expect(app["display_name"] as? String == "Beyond Identity Dev")
            let authn = try #require(claims["authn"] as? [String: Any])
            #expect(authn["base_url"] as? String == bi.origin + "/bi")
            #expect(authn["tid"] as? String == "t1")
            #expect(authn["rid"] as? String == "r1")
            #expect(authn["aid"] as? String == "a1")
            #expect(authn["redirect_uri"] as? String == bi.origin + BIHarness.callback)
            #expect(authn["state"] as? String == "okta-state")
            let prove = try #require((authn["action"] as? [String: Any])?["prove"] as? [String: Any])
            let transaction = try #require(prove["transaction_id"] as? String)
            #expect(claims["sub"] as? String == transaction)
            let nonce = try #require(prove["nonce"] as? String)
            #expect(Base64URL.decode(nonce, padding: .refused)?.count == 32)
            #expect(prove["bi_req"] as? String == "W3siZGlyZWN0Ijp7ImlkIjoicGxhdGZvcm0iLCJhcmd1bWVudHMiOltdfX1d")
            #expect(prove["rp_id"] as? String == BIHarness.rpId)
            #expect(prove["origin"] as? String == BIHarness.passkeyOrigin)
            #expect(prove["allow_credentials"] as? [String] == [Base64URL.encode(key.credentialId)])
            let origin = try #require(claims["origin"] as? [String: Any])
            #expect(origin["ip"] as? String == "127.0.0.1")
            #expect(origin["ua"] as? String == "bi-test-browser/1.0")
            #expect(origin["ref"] as? String == "")
            #expect(claims["indirect_uri"] as? String == bi.origin + BIHarness.realm + "/transactions/\(transaction)/indirect")
        }
    }

    @Test func manualInvocationAnswersTheAuthenticateURL() async throws {
        try await DevServerHarness.with({ $0.bi.invocation = .manual; $0.bi.invokeURL = "https://app.example.test/cb/" }) { h in
            let bi = BIHarness(h)
            let reply = try await h.client.send("GET", BIHarness.app + "/authorize?"
                                                + BIHarness.authorizeQuery(redirect: bi.origin + BIHarness.callback))
            #expect(reply.status == 200, "\(reply)")
            let url = try #require(reply.json["authenticate_url"] as? String)
            #expect(url.hasPrefix("https://app.example.test/cb/bi-authenticate?request=ey"))
        }
    }

    @Test func authorizeRefusesUnknownClientsAndRedirects() async throws {
        try await DevServerHarness.with { h in
            let bi = BIHarness(h)
            let callback = bi.origin + BIHarness.callback
            // Never a redirect to an unchecked URI.
            let evil = try await h.client.send("GET", BIHarness.app + "/authorize?" + BIHarness.authorizeQuery(redirect: "https://evil.example/cb"))
            BIHarness.expectError(evil, "invalid_request")
            #expect(evil.headers["location"] == nil)
            let query = BIHarness.authorizeQuery(redirect: callback).replacingOccurrences(of: "client_id=bi-okta", with: "client_id=other")
            BIHarness.expectError(try await h.client.send("GET", BIHarness.app + "/authorize?" + query), "invalid_request")
            // After the redirect URI is known good, errors go back to it.
            let scope = BIHarness.authorizeQuery(redirect: callback).replacingOccurrences(of: "scope=openid", with: "scope=email")
            let (uri, answer) = try OAuthHarness.location(try await h.client.send("GET", BIHarness.app + "/authorize?" + scope))
            #expect(uri == callback)
            #expect(answer["error"] == "invalid_scope")
            #expect(answer["state"] == "okta-state")
        }
    }
}
