import DevServer
import DevServerTestSupport
import Foundation
import Testing
import TestSupport

/// The device authorization grant (RFC 8628): user codes, polling with
/// authorization_pending and slow_down, approval and denial at /activate, expiry.
@Suite(.ownThreads) struct OAuthDeviceFlowTests {
    struct Device {
        var deviceCode: String
        var userCode: String
        var interval: Int
    }

    func start(_ o: OAuthHarness, scope: String = "openid profile") async throws -> Device {
        let reply = try await o.post("/oauth2/default/v1/device/authorize", [("client_id", "cli"), ("scope", scope)])
        #expect(reply.status == 200, "\(reply)")
        let json = reply.json
        let userCode = try #require(json["user_code"] as? String)
        #expect(userCode.wholeMatch(of: /[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}/) != nil, "\(userCode)")
        let verification = "http://\(o.h.client.host):\(o.h.client.port)/activate"
        #expect(json["verification_uri"] as? String == verification)
        #expect(json["verification_uri_complete"] as? String == verification + "?user_code=" + userCode)
        return Device(deviceCode: try #require(json["device_code"] as? String), userCode: userCode,
                      interval: try #require(json["interval"] as? Int))
    }

    func poll(_ o: OAuthHarness, _ device: Device) async throws -> LoopbackHTTPClient.Reply {
        try await o.post("/oauth2/default/v1/token", [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                                                      ("client_id", "cli"), ("device_code", device.deviceCode)])
    }

    func activate(_ o: OAuthHarness, _ form: [(String, String)]) async throws -> LoopbackHTTPClient.Reply {
        try await o.post("/activate", form)
    }

    @Test func pendingSlowDownApproveAndRedeemOnce() async throws {
        try await DevServerHarness.with({ $0.oauth.deviceInterval = 1 }) { h in
            // Polls "at once" must be at once whatever the machine's load: only `advance` moves time.
            h.clock.freeze()
            let o = OAuthHarness(h)
            let device = try await start(o)
            #expect(device.interval == 1)
            OAuthHarness.expectError(try await poll(o, device), "authorization_pending")
            // At once again: too soon.
            OAuthHarness.expectError(try await poll(o, device), "slow_down")
            // The interval grew by 5 s: one second later is still too soon.
            h.clock.advance(seconds: 2)
            OAuthHarness.expectError(try await poll(o, device), "slow_down")
            h.clock.advance(seconds: 12)
            OAuthHarness.expectError(try await poll(o, device), "authorization_pending")

            let page = try await o.get("/activate?user_code=\(device.userCode)")
            #expect(page.status == 200)
            #expect(page.text.contains("cli"), "the page names the client (RFC 8628 §5.4)")
            // Typed in lowercase without the dash, it is the same code.
            let typed = device.userCode.lowercased().replacingOccurrences(of: "-", with: "")
            let approved = try await activate(o, [("user_code", typed), ("user", "carol"), ("action", "allow")])
            #expect(approved.status == 200, "\(approved)")
            #expect(try await activate(o, [("user_code", typed), ("user", "mallory"), ("action", "allow")]).status == 400,
                    "a decided code cannot be decided again")

            h.clock.advance(seconds: 20)
            let tokens = try await poll(o, device)
            #expect(tokens.status == 200, "\(tokens)")
            #expect(tokens.json["scope"] as? String == "openid profile")
            #expect(tokens.json["refresh_token"] is String)
            let idToken = try #require(tokens.json["id_token"] as? String)
            let claims = try await o.verifiedIDToken(idToken).claims
            #expect(claims.sub.value == "carol")
            #expect(claims.nonce == nil)
            OAuthHarness.expectError(try await poll(o, device), "invalid_grant")
        }
    }

    @Test func deniedAndExpiredDeviceCodes() async throws {
        try await DevServerHarness.with({ $0.oauth.deviceInterval = 1; $0.oauth.deviceCodeLifetime = .seconds(30) }) { h in
            let o = OAuthHarness(h)
            let denied = try await start(o)
            #expect(try await activate(o, [("user_code", denied.userCode), ("action", "deny")]).status == 200)
            OAuthHarness.expectError(try await poll(o, denied), "access_denied")

            let expiring = try await start(o)
            h.clock.advance(seconds: 31)
            OAuthHarness.expectError(try await poll(o, expiring), "expired_token")
            #expect(try await activate(o, [("user_code", expiring.userCode), ("user", "carol"), ("action", "allow")]).status == 400)
        }
    }

    @Test func badDeviceRequestsAreRefused() async throws {
        try await DevServerHarness.with { h in
            let o = OAuthHarness(h)
            let path = "/oauth2/default/v1/device/authorize"
            OAuthHarness.expectError(try await o.post(path, [("scope", "openid")]), "invalid_client", status: 401)
            OAuthHarness.expectError(try await o.post(path, [("client_id", "cli"), ("scope", "openid root")]), "invalid_scope")
            let device = try await start(o)
            #expect(try await activate(o, [("user_code", "BBBB-BBBB"), ("user", "carol"), ("action", "allow")]).status == 400)
            #expect(try await activate(o, [("user_code", "AAAA-AAAA"), ("user", "carol"), ("action", "allow")]).status == 400)
            #expect(try await activate(o, [("user_code", device.userCode), ("action", "allow")]).status == 400, "names nobody")
            OAuthHarness.expectError(try await o.post("/oauth2/default/v1/token", [
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("client_id", "cli"), ("device_code", "nope")]),
                "invalid_grant")
            // Untouched by those attempts, it can still be approved.
            #expect(try await activate(o, [("user_code", device.userCode), ("user", "carol"), ("action", "allow")]).status == 200)
        }
    }
}
