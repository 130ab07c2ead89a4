import DevServer
import DevServerTestSupport
import Foundation
import Testing
import TestSupport

/// Discovery and the JWKS: the shapes `passkey login` and other OIDC clients rely on.
@Suite(.ownThreads) struct OAuthDiscoveryTests {
    @Test func metadataNamesEveryEndpointUnderTheExactIssuer() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            #expect(h.inProcess?.issuer == o.issuer)
            let reply = try await o.get("/oauth2/default/.well-known/openid-configuration")
            #expect(reply.status == 200)
            let m = reply.json
            #expect(m["issuer"] as? String == o.issuer)
            #expect(m["authorization_endpoint"] as? String == o.issuer + "/v1/authorize")
            #expect(m["token_endpoint"] as? String == o.issuer + "/v1/token")
            #expect(m["jwks_uri"] as? String == o.issuer + "/v1/keys")
            #expect(m["userinfo_endpoint"] as? String == o.issuer + "/v1/userinfo")
            #expect(m["revocation_endpoint"] as? String == o.issuer + "/v1/revoke")
            #expect(m["device_authorization_endpoint"] as? String == o.issuer + "/v1/device/authorize")
            #expect(m["response_types_supported"] as? [String] == ["code"])
            #expect(m["grant_types_supported"] as? [String] == ["authorization_code", "refresh_token",
                                                                "urn:ietf:params:oauth:grant-type:device_code", "interaction_code"])
            #expect(m["code_challenge_methods_supported"] as? [String] == ["S256"])
            #expect(m["id_token_signing_alg_values_supported"] as? [String] == ["ES256", "RS256"])
            #expect(m["token_endpoint_auth_methods_supported"] as? [String] == ["none"])
            #expect(m["scopes_supported"] as? [String] == ["openid", "profile", "email", "offline_access"])
            #expect(m["authorization_response_iss_parameter_supported"] as? Bool == true)
            #expect(reply.headers["cache-control"] == "public, max-age=300")
        }
    }

    @Test func jwksHasAnES256AndAnRS256SigningKey() async throws {
        try await DevServerHarness.with { h in
            let reply = try await OAuthHarness(h).get("/oauth2/default/v1/keys")
            #expect(reply.status == 200)
            #expect(reply.headers["cache-control"] == "public, max-age=300")
            let keys = try #require(reply.json["keys"] as? [[String: Any]])
            #expect(keys.count == 2)
            let ec = try #require(keys.first { $0["alg"] as? String == "ES256" })
            #expect(ec["kty"] as? String == "EC")
            #expect(ec["crv"] as? String == "P-256")
            #expect(ec["use"] as? String == "sig")
            #expect((ec["x"] as? String)?.count == 43)
            #expect(ec["d"] == nil, "no private part")
            let rsa = try #require(keys.first { $0["alg"] as? String == "RS256" })
            #expect(rsa["kty"] as? String == "RSA")
            #expect(rsa["use"] as? String == "sig")
            #expect(rsa["e"] as? String == "AQAB")
            #expect(((rsa["n"] as? String)?.count ?? 0) >= 342, "a 2048-bit modulus")
            #expect(rsa["d"] == nil && rsa["p"] == nil, "no private part")
            #expect(Set(keys.compactMap { $0["kid"] as? String }).count == 2)
        }
    }
}
