import DevServerTestSupport
import Foundation
import Testing
import TestSupport

/// Any web page the user opens can send requests to the devserver's port.
/// It used to answer `Access-Control-Allow-Origin: *` everywhere, so a page
/// that found the port could post the consent form or /activate (the
/// development shortcut names any user) and mint tokens. Now only the
/// passwordless.dev public API answers CORS; the OAuth, /activate, BI and
/// IDX routes take only their own Host and, when a request names one, their
/// own Origin.
@Suite(.ownThreads) struct BrowserBoundaryTests {
    enum BIPaths {
        static let discovery = "/bi/v1/tenants/t1/realms/r1/applications/a1/.well-known/openid-configuration"
    }
    static let foreignOrigin = "https://evil.example"

    @Test("a foreign Origin gets no code from the consent form and no token from /activate or the token endpoint")
    func aForeignOriginGetsNoToken() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let (verifier, challenge) = OAuthHarness.pkce()
            let query = OAuthHarness.authorizeQuery(challenge: challenge)
            let consent = try await o.post("\(o.base)/v1/authorize?\(query)", [("user", "mallory"), ("action", "allow")],
                                           headers: ["Origin": Self.foreignOrigin])
            #expect(consent.status == 403, "\(consent)")
            #expect(consent.headers["location"] == nil, "no redirect, so no code")
            #expect(consent.headers["access-control-allow-origin"] == nil)
            #expect(!consent.text.contains("evil.example"), "the page's origin is not echoed")
            // An opaque origin (a sandboxed frame, a file:// page) is not the devserver's either.
            let opaque = try await o.post("\(o.base)/v1/authorize?\(query)", [("user", "mallory"), ("action", "allow")],
                                          headers: ["Origin": "null"])
            #expect(opaque.status == 403)

            let device = try await o.post("\(o.base)/v1/device/authorize", [("client_id", "cli"), ("scope", "openid")])
            let userCode = try #require(device.json["user_code"] as? String)
            let deviceCode = try #require(device.json["device_code"] as? String)
            let activated = try await o.post("/activate", [("user_code", userCode), ("user", "mallory"), ("action", "allow")],
                                             headers: ["Origin": Self.foreignOrigin])
            #expect(activated.status == 403, "\(activated)")
            h.clock.advance(seconds: 10)
            let polled = try await o.post("\(o.base)/v1/token", [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                                                                 ("client_id", "cli"), ("device_code", deviceCode)])
            OAuthHarness.expectError(polled, "authorization_pending")

            // The IDX routes too: a page cannot start an interaction.
            let interact = try await o.post("\(o.base)/v1/interact", [("client_id", "cli"), ("scope", "openid")],
                                            headers: ["Origin": Self.foreignOrigin])
            #expect(interact.status == 403, "\(interact)")

            // The token endpoint itself refuses a page's request, even with a good code.
            let code = try await o.authorize(challenge: challenge)
            let redeemed = try await o.post("\(o.base)/v1/token", [("grant_type", "authorization_code"), ("client_id", "cli"),
                                                                   ("code", code), ("redirect_uri", OAuthHarness.redirect),
                                                                   ("code_verifier", verifier)],
                                            headers: ["Origin": Self.foreignOrigin])
            #expect(redeemed.status == 403)
            #expect(redeemed.json["access_token"] == nil)
        }
    }

    @Test("the devserver's own pages still work: its own Origin is accepted on the consent form and /activate")
    func theOwnOriginIsAccepted() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let own = "http://\(h.client.host):\(h.client.port)"
            let (_, challenge) = OAuthHarness.pkce()
            let query = OAuthHarness.authorizeQuery(challenge: challenge)
            let consent = try await o.post("\(o.base)/v1/authorize?\(query)", [("user", "alice"), ("action", "allow")],
                                           headers: ["Origin": own])
            #expect(try OAuthHarness.location(consent).query["code"] != nil)
            let device = try await o.post("\(o.base)/v1/device/authorize", [("client_id", "cli"), ("scope", "openid")])
            let userCode = try #require(device.json["user_code"] as? String)
            let activated = try await o.post("/activate", [("user_code", userCode), ("user", "alice"), ("action", "allow")],
                                             headers: ["Origin": own])
            #expect(activated.status == 200, "\(activated)")
        }
    }

    @Test("a wrong Host is refused on the OAuth, /activate, BI and IDX routes")
    func aWrongHostIsRefused() async throws {
        try await DevServerHarness.with { h in
            let port = h.client.port
            // A DNS-rebound page sends its own name; `localhost` is another name for the same socket.
            for host in ["evil.example:\(port)", "localhost:\(port)", "127.0.0.1", "127.0.0.1:1", "127.0.0.1:\(port).evil.example"] {
                for path in ["/oauth2/default/.well-known/openid-configuration", "/activate", BIPaths.discovery] {
                    let reply = try await h.client.send("GET", path, headers: ["Host": host])
                    #expect(reply.status == 403, "\(host) \(path): \(reply)")
                }
                let interact = try await h.client.send("POST", "/oauth2/default/v1/interact", headers: ["Host": host,
                                                       "Content-Type": "application/x-www-form-urlencoded"], body: Array("client_id=cli".utf8))
                #expect(interact.status == 403, "\(host) interact")
            }
            let discovery = try await h.client.send("GET", "/oauth2/default/.well-known/openid-configuration")
            #expect(discovery.status == 200, "the listen address is answered")
            #expect(discovery.headers["access-control-allow-origin"] == nil, "no CORS outside the public API")
        }
    }

    @Test("the passwordless.dev public API still answers CORS for any origin; the secret API does not")
    func thePublicAPIAnswersCORS() async throws {
        try await DevServerHarness.with { h in
            let preflight = try await h.client.send("OPTIONS", "/signin/begin", headers: [
                "Origin": "https://app.example", "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type, apikey"])
            #expect(preflight.headers["access-control-allow-origin"] == "*", "\(preflight.headers)")
            #expect(preflight.headers["access-control-allow-headers"]?.lowercased().contains("apikey") == true)
            let begin = try await h.client.send("POST", "/signin/begin", headers: ["ApiKey": h.apiKey, "Origin": "https://app.example"],
                                                json: ["RPID": h.rpId, "Origin": h.origin])
            #expect(begin.status == 200, "\(begin)")
            #expect(begin.headers["access-control-allow-origin"] == "*")
            let secret = try await h.client.send("GET", "/users/count", headers: ["ApiSecret": h.apiSecret, "Origin": "https://app.example"])
            #expect(secret.status == 200, "\(secret)")
            #expect(secret.headers["access-control-allow-origin"] == nil)
        }
    }
}
