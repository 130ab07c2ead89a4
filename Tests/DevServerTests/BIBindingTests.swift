import Base64
import DevServer
import DevServerTestSupport
import Foundation
import Testing
import TestSupport
import WebAuthn

/// Identities and credential binding jobs (RETURN delivery): the link, the
/// invoke URL's /bind route, begin/complete with strict registration checks,
/// and a job that binds once.
@Suite(.ownThreads) struct BIBindingTests {
    @Test func aBindingJobBindsOneDiscoverablePasskeyOnce() async throws {
        try await DevServerHarness.with { h in
            let bi = BIHarness(h)
            let identityId = try await bi.createIdentity("alice")
            let link = try await bi.bindingLink(identityId: identityId, extra: ["post_binding_redirect_uri": "https://app.example.test/done"])
            #expect(link.hasPrefix(bi.origin + BIHarness.realm + "/credential-binding-jobs/"))
            #expect(link.contains(":invokeAuthenticator?token="))
            let bind = try await bi.followBindingLink(link)
            #expect(bind["api_base_url"] == bi.origin + "/bi")
            #expect(bind["tenant_id"] == "t1")
            #expect(bind["realm_id"] == "r1")
            #expect(bind["identity_id"] == identityId)

            let options = try await bi.beginBinding(bind)
            #expect(options.rp.id == BIHarness.rpId)
            #expect(options.user.name == "alice")
            #expect(options.user.displayName == "Alice")
            #expect(options.user.id.bytes == Array(identityId.utf8))
            #expect(options.pubKeyCredParams.map(\.alg) == [-7, -8])
            #expect(options.authenticatorSelection?.residentKey == .required)
            #expect(options.authenticatorSelection?.userVerification == .preferred)
            #expect(options.challenge.bytes.count == 32)

            var key = SoftwareAuthenticator()
            let credential = key.register(options, origin: BIHarness.passkeyOrigin)
            let reply = try await bi.completeBinding(bind, credential)
            #expect(reply.status == 200, "\(reply)")
            let passkey = try #require(reply.json["passkey"] as? [String: Any])
            #expect(passkey["id"] as? String == Base64URL.encode(key.credentialId))
            #expect((passkey["identity"] as? [String: Any])?["username"] as? String == "alice")
            #expect(reply.json["post_binding_redirect_uri"] as? String == "https://app.example.test/done")

            // A second use of the job, by any route, is refused.
            var other = SoftwareAuthenticator()
            BIHarness.expectError(try await bi.completeBinding(bind, other.register(options, origin: BIHarness.passkeyOrigin)), "job_used")
            BIHarness.expectError(try await bi.bindStep(bind, "begin", ["token": try #require(bind["token"])]), "job_used")
            BIHarness.expectError(try await h.client.send("GET", try bi.path(of: link)), "job_used")
        }
    }

    @Test func registrationIsVerifiedStrictly() async throws {
        try await DevServerHarness.with { h in
            let bi = BIHarness(h)
            let bind = try await bi.followBindingLink(try await bi.bindingLink(identityId: try await bi.createIdentity("bob")))
            var key = SoftwareAuthenticator()
            // The wrong origin: refused, and that begin is spent.
            var options = try await bi.beginBinding(bind)
            let refused = try await bi.completeBinding(bind, key.register(options, origin: "https://evil.example"))
            BIHarness.expectError(refused, "invalid_registration")
            BIHarness.expectError(try await bi.completeBinding(bind, key.register(options, origin: BIHarness.passkeyOrigin)),
                                  "invalid_request")
            // Another challenge.
            options = try await bi.beginBinding(bind)
            var tampering = SoftwareAuthenticator.Tampering()
            tampering.challenge = Array(repeating: 1, count: 32)
            BIHarness.expectError(try await bi.completeBinding(bind, key.registration(
                challenge: options.challenge.bytes, origin: BIHarness.passkeyOrigin, rpId: BIHarness.rpId, tampering: tampering)),
                "invalid_registration")
            // A wrong token names no job.
            var forged = bind
            forged["token"] = "AAAA"
            BIHarness.expectError(try await bi.bindStep(forged, "begin", ["token": "AAAA"]), "not_found")
            // The job still binds with a good registration.
            options = try await bi.beginBinding(bind)
            #expect(try await bi.completeBinding(bind, key.register(options, origin: BIHarness.passkeyOrigin)).status == 200)
        }
    }

    @Test func adminCallsNeedTheAPISecretAndGoodInput() async throws {
        try await DevServerHarness.with { h in
            let bi = BIHarness(h)
            let body: [String: Any] = ["identity": ["display_name": "Eve", "traits": ["username": "eve"]]]
            let noSecret = try await h.client.send("POST", BIHarness.realm + "/identities", json: body)
            #expect(noSecret.status == 401)
            let withKey = try await h.call("POST", BIHarness.realm + "/identities", header: ("ApiKey", h.apiKey), body)
            #expect(withKey.status == 401)
            #expect(try await h.secret("POST", BIHarness.realm + "/identities", body).status == 200)
            BIHarness.expectError(try await h.secret("POST", BIHarness.realm + "/identities", body), "conflict")
            BIHarness.expectError(try await h.secret("POST", BIHarness.realm + "/identities", ["identity": ["traits": [:]]]), "invalid_request")
            let id = try await bi.createIdentity("frank")
            BIHarness.expectError(try await h.secret("POST", BIHarness.realm + "/identities/\(id)/credential-binding-jobs",
                                                     ["job": ["delivery_method": "EMAIL"]]), "invalid_request")
            BIHarness.expectError(try await h.secret("POST", BIHarness.realm + "/identities/\(id)/credential-binding-jobs",
                                                     ["job": ["delivery_method": "RETURN", "post_binding_redirect_uri": "http://evil.example/"]]),
                                  "invalid_request")
            BIHarness.expectError(try await h.secret("POST", BIHarness.realm + "/identities/nobody/credential-binding-jobs",
                                                     ["job": ["delivery_method": "RETURN"]]), "not_found")
        }
    }
}
