import DevServer
import DevServerTestSupport
import Foundation
import Testing
import TestSupport
import WebAuthn

/// Each forged or replayed registration is refused with a 4xx problem, and
/// an honest one still succeeds afterwards.
@Suite(.ownThreads) struct RegistrationRefusalTests {
    typealias Tampering = SoftwareAuthenticator.Tampering

    /// Begins a registration, posts the tampered response, expects the
    /// refusal, then proves the server still registers an honest credential.
    func expectRefused(_ tampering: Tampering, attestation: SoftwareAuthenticator.Attestation = .none,
                       tokenOptions: [String: Any] = [:], postedOrigin: String? = nil,
                       status: Int = 400, code: String = "fido2_invalid_registration", titleContains: String,
                       sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await DevServerHarness.with { h in
            let (options, session) = try await h.registerBegin(token: try await h.registerToken(userId: "victim", tokenOptions))
            var key = SoftwareAuthenticator()
            let response = key.register(options, origin: h.origin, attestation: attestation, tampering: tampering)
            let reply = try await h.registerComplete(session: session, response, origin: postedOrigin)
            expectProblem(reply, status: status, code: code, titleContains: titleContains, sourceLocation: sourceLocation)
            var honest = SoftwareAuthenticator()
            _ = try await h.register(userId: "victim", with: &honest, tokenOptions)
        }
    }

    @Test func wrongType() async throws {
        var t = Tampering(); t.type = .get
        try await expectRefused(t, titleContains: "clientDataJSON.type")
    }

    @Test func wrongChallenge() async throws {
        var t = Tampering(); t.challenge = Array(repeating: 7, count: 16)
        try await expectRefused(t, titleContains: "clientDataJSON.challenge")
    }

    /// The client data names another origin than the one posted.
    @Test func wrongOrigin() async throws {
        var t = Tampering(); t.origin = "https://localhost:8443"
        try await expectRefused(t, titleContains: "clientDataJSON.origin")
    }

    /// The posted Origin is not on the allow-list (the hosted API would accept it).
    @Test func originNotAllowed() async throws {
        var t = Tampering(); t.origin = "https://evil.example"
        try await expectRefused(t, postedOrigin: "https://evil.example", code: "origin_not_allowed", titleContains: "evil.example")
    }

    @Test func wrongRpIdHash() async throws {
        var t = Tampering(); t.rpId = "evil.example"
        try await expectRefused(t, titleContains: "rpIdHash")
    }

    @Test func missingUserPresence() async throws {
        var t = Tampering(); t.flags = [.userVerified]
        try await expectRefused(t, titleContains: "flags.UP")
    }

    @Test func missingRequiredUserVerification() async throws {
        var t = Tampering(); t.flags = [.userPresent]
        try await expectRefused(t, tokenOptions: ["userVerification": "required"], titleContains: "flags.UV")
    }

    @Test func badSelfAttestationSignature() async throws {
        var t = Tampering(); t.corruptSignature = true
        try await expectRefused(t, attestation: .packedSelf, titleContains: "attStmt")
    }

    @Test func packedSelfAttestationIsAccepted() async throws {
        try await DevServerHarness.with { h in
            let (options, session) = try await h.registerBegin(token: try await h.registerToken(userId: "u"))
            var key = SoftwareAuthenticator()
            let reply = try await h.registerComplete(session: session, key.register(options, origin: h.origin, attestation: .packedSelf))
            #expect(reply.status == 200, "\(reply)")
            let list = try await h.secret("GET", "/credentials/list?userId=u")
            #expect((list.json["values"] as? [[String: Any]])?.first?["attestationFmt"] as? String == "packed")
        }
    }

    @Test func duplicateCredentialIdAcrossUsers() async throws {
        try await DevServerHarness.with { h in
            var key = SoftwareAuthenticator()
            _ = try await h.register(userId: "first", with: &key)
            for user in ["first", "second"] {
                let (options, session) = try await h.registerBegin(token: try await h.registerToken(userId: user))
                let reply = try await h.registerComplete(session: session, key.register(options, origin: h.origin))
                expectProblem(reply, status: 400, code: "fido2_invalid_registration", titleContains: "already registered")
            }
            var fresh = SoftwareAuthenticator()
            _ = try await h.register(userId: "second", with: &fresh)
        }
    }

    @Test func replayedSession() async throws {
        try await DevServerHarness.with { h in
            let (options, session) = try await h.registerBegin(token: try await h.registerToken(userId: "u"))
            var key = SoftwareAuthenticator()
            let response = key.register(options, origin: h.origin)
            #expect(try await h.registerComplete(session: session, response).status == 200)
            var other = SoftwareAuthenticator()
            expectProblem(try await h.registerComplete(session: session, other.register(options, origin: h.origin)),
                          status: 403, code: "token_already_used")
            var honest = SoftwareAuthenticator()
            _ = try await h.register(userId: "u", with: &honest)
        }
    }

    /// A failed attempt spends the session too: the challenge is never tried twice.
    @Test func failedAttemptSpendsTheSession() async throws {
        try await DevServerHarness.with { h in
            let (options, session) = try await h.registerBegin(token: try await h.registerToken(userId: "u"))
            var key = SoftwareAuthenticator()
            var t = Tampering(); t.flags = [.userVerified]
            expectProblem(try await h.registerComplete(session: session, key.register(options, origin: h.origin, tampering: t)),
                          status: 400, code: "fido2_invalid_registration")
            expectProblem(try await h.registerComplete(session: session, key.register(options, origin: h.origin)),
                          status: 403, code: "token_already_used")
        }
    }

    @Test func expiredSession() async throws {
        try await DevServerHarness.with { h in
            let (options, session) = try await h.registerBegin(token: try await h.registerToken(userId: "u"))
            h.clock.advance(seconds: 121)
            var key = SoftwareAuthenticator()
            expectProblem(try await h.registerComplete(session: session, key.register(options, origin: h.origin)),
                          status: 403, code: "expired_token", titleContains: "The token expired")
            var honest = SoftwareAuthenticator()
            _ = try await h.register(userId: "u", with: &honest)
        }
    }

    @Test func sessionLifetimeIsConfigurable() async throws {
        try await DevServerHarness.with({ $0.sessionLifetime = .seconds(5) }) { h in
            let (options, session) = try await h.registerBegin(token: try await h.registerToken(userId: "u"))
            h.clock.advance(seconds: 6)
            var key = SoftwareAuthenticator()
            expectProblem(try await h.registerComplete(session: session, key.register(options, origin: h.origin)),
                          status: 403, code: "expired_token", titleContains: "seconds ago")
        }
    }

    @Test func bogusAndExpiredRegisterTokens() async throws {
        try await DevServerHarness.with { h in
            let token = try await h.registerToken(userId: "u")
            func begin(_ token: String?) async throws -> LoopbackHTTPClient.Reply {
                var body: [String: Any] = ["RPID": h.rpId, "Origin": h.origin]
                if let token { body["token"] = token }
                return try await h.publicAPI("/register/begin", body)
            }
            // A forged MAC: flip one character of the payload.
            var forged = Array(token)
            let index = forged.index(forged.startIndex, offsetBy: 20)
            forged[index] = forged[index] == "A" ? "B" : "A"
            expectProblem(try await begin(String(forged)), status: 400, code: "invalid_token")
            expectProblem(try await begin("verify_" + token.dropFirst("register_".count)), status: 400, code: "invalid_token")
            expectProblem(try await begin("register_!!!"), status: 400, code: "invalid_token_format")
            expectProblem(try await begin("register_AAAA"), status: 400, code: "invalid_token_format")
            expectProblem(try await begin(nil), status: 400, code: "missing_token")
            // A token from another server (other keys) is not ours.
            try await DevServerHarness.with { other in
                expectProblem(try await begin(try await other.registerToken(userId: "u")), status: 400, code: "invalid_token")
            }
            h.clock.advance(seconds: 130)
            expectProblem(try await begin(token), status: 403, code: "expired_token", titleContains: "The token expired")
            // Still fine with a fresh token.
            _ = try await h.registerBegin(token: try await h.registerToken(userId: "u"))
        }
    }

    @Test func registerTokenExpiresAtIsHonoured() async throws {
        try await DevServerHarness.with { h in
            let past = try await h.registerToken(userId: "u", ["expiresAt": "2001-01-01T00:00:00Z"])
            expectProblem(try await h.publicAPI("/register/begin", ["token": past, "RPID": h.rpId, "Origin": h.origin]),
                          status: 403, code: "expired_token", titleContains: "seconds ago")
            // A time without a zone is UTC.
            let future = try await h.registerToken(userId: "u", ["expiresAt": "2999-01-01T00:00:00"])
            _ = try await h.registerBegin(token: future)
        }
    }

    @Test func registerTokenInputIsValidated() async throws {
        try await DevServerHarness.with { h in
            let cases: [([String: Any], String)] = [
                (["username": "x"], "missing_userid"),
                (["userId": "", "username": "x"], "missing_userid"),
                (["userId": String(repeating: "u", count: 65), "username": "x"], "invalid_argument"),
                (["userId": "u"], "invalid_argument"),
                (["userId": "u", "username": "x", "attestation": "enterprise"], "invalid_attestation"),
                (["userId": "u", "username": "x", "userVerification": "sometimes"], "invalid_argument"),
                (["userId": "u", "username": "x", "authenticatorType": "implant"], "invalid_argument"),
                (["userId": "u", "username": "x", "hints": ["telepathy"]], "invalid_argument"),
                (["userId": "u", "username": "x", "aliases": [""]], "invalid_argument"),
                (["userId": "u", "username": "x", "aliases": (0..<11).map { "a\($0)" }], "invalid_argument"),
                (["userId": "u", "username": "x", "expiresAt": "tomorrow"], "invalid_argument"),
            ]
            for (body, code) in cases {
                expectProblem(try await h.secret("POST", "/register/token", body), status: 400, code: code)
            }
        }
    }

    @Test func beginRefusesUnlistedRpIdAndMissingOrigin() async throws {
        try await DevServerHarness.with { h in
            let token = try await h.registerToken(userId: "u")
            expectProblem(try await h.publicAPI("/register/begin", ["token": token, "RPID": "evil.example", "Origin": h.origin]),
                          status: 400, code: "rpid_not_allowed")
            let noOrigin = try await h.publicAPI("/register/begin", ["token": token, "RPID": h.rpId, "Origin": ""])
            expectProblem(noOrigin, status: 400, code: nil, titleContains: "Origin is required.")
        }
    }
}
