import Base64
import DevServer
import DevServerTestSupport
import Foundation
import Testing
import TestSupport
import WebAuthn

/// Each forged or replayed sign-in is refused with a 4xx problem, and an
/// honest sign-in still succeeds afterwards.
@Suite(.ownThreads) struct SignInRefusalTests {
    typealias Tampering = SoftwareAuthenticator.Tampering

    /// Registers `user-1`, begins a sign-in with `begin`, posts the tampered
    /// assertion, expects the refusal, then signs in honestly.
    func expectRefused(_ tampering: Tampering, begin: [String: Any] = ["userId": "user-1"], postedOrigin: String? = nil,
                       configure: (inout DevServerConfiguration) -> Void = { _ in },
                       status: Int = 400, code: String = "signin_complete_error", titleContains: String,
                       sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await DevServerHarness.with(configure) { h in
            var key = SoftwareAuthenticator()
            _ = try await h.register(userId: "user-1", with: &key)
            let (options, session) = try await h.signinBegin(begin)
            let reply = try await h.signinComplete(session: session, key.assert(options, origin: h.origin, tampering: tampering),
                                                   origin: postedOrigin)
            expectProblem(reply, status: status, code: code, titleContains: titleContains, sourceLocation: sourceLocation)
            _ = try await h.signIn(begin, with: &key)
        }
    }

    @Test func wrongType() async throws {
        var t = Tampering(); t.type = .create
        try await expectRefused(t, titleContains: "clientDataJSON.type")
    }

    @Test func wrongChallenge() async throws {
        var t = Tampering(); t.challenge = Array(repeating: 1, count: 16)
        try await expectRefused(t, titleContains: "clientDataJSON.challenge")
    }

    @Test func wrongOrigin() async throws {
        var t = Tampering(); t.origin = "http://localhost"
        try await expectRefused(t, titleContains: "clientDataJSON.origin")
    }

    @Test func originNotAllowed() async throws {
        var t = Tampering(); t.origin = "https://evil.example"
        try await expectRefused(t, postedOrigin: "https://evil.example", code: "origin_not_allowed", titleContains: "evil.example")
    }

    @Test func wrongRpIdHash() async throws {
        var t = Tampering(); t.rpId = "example.com"
        try await expectRefused(t, titleContains: "rpIdHash")
    }

    @Test func missingUserPresence() async throws {
        var t = Tampering(); t.flags = [.userVerified]
        try await expectRefused(t, titleContains: "flags.UP")
    }

    @Test func missingRequiredUserVerification() async throws {
        var t = Tampering(); t.flags = [.userPresent]
        try await expectRefused(t, configure: { $0.signInUserVerification = .required }, titleContains: "flags.UV")
    }

    @Test func badSignature() async throws {
        var t = Tampering(); t.corruptSignature = true
        try await expectRefused(t, titleContains: "response.signature")
    }

    @Test func counterRegression() async throws {
        // Registration stored 0; the first sign-in moves it to 1, so a replayed 1 is a regression.
        try await DevServerHarness.with { h in
            var key = SoftwareAuthenticator()
            _ = try await h.register(userId: "user-1", with: &key)
            _ = try await h.signIn(["userId": "user-1"], with: &key)
            let (options, session) = try await h.signinBegin(["userId": "user-1"])
            var t = Tampering(); t.signCount = 1
            expectProblem(try await h.signinComplete(session: session, key.assert(options, origin: h.origin, tampering: t)),
                          status: 400, code: "signin_complete_error", titleContains: "signCount")
            _ = try await h.signIn(["userId": "user-1"], with: &key)
        }
    }

    @Test func userHandleMismatch() async throws {
        var t = Tampering(); t.userHandle = .some(Array("user-2".utf8))
        try await expectRefused(t, titleContains: "userHandle")
    }

    /// Discoverable sign-in identifies the user by the handle; without one it is refused.
    @Test func discoverableWithoutUserHandle() async throws {
        var t = Tampering(); t.userHandle = .some(nil)
        try await expectRefused(t, begin: [:], titleContains: "userHandle")
    }

    @Test func unknownCredential() async throws {
        try await DevServerHarness.with { h in
            var key = SoftwareAuthenticator()
            _ = try await h.register(userId: "user-1", with: &key)
            var stranger = SoftwareAuthenticator()
            stranger.userHandle = Array("user-1".utf8)
            let (options, session) = try await h.signinBegin([:])
            let reply = try await h.signinComplete(session: session, stranger.assert(options, origin: h.origin))
            expectProblem(reply, status: 400, code: "unknown_credential")
            #expect(reply.json["credentialId"] as? String == Base64URL.encode(stranger.credentialId))
            _ = try await h.signIn([:], with: &key)
        }
    }

    /// A sign-in begun for user-1 cannot be completed with user-2's credential,
    /// whether user-1 has credentials (allowCredentials) or not (expected user).
    @Test func anotherUsersCredential() async throws {
        try await DevServerHarness.with { h in
            var mine = SoftwareAuthenticator()
            var theirs = SoftwareAuthenticator()
            _ = try await h.register(userId: "user-1", with: &mine)
            _ = try await h.register(userId: "user-2", with: &theirs)
            for begin in [["userId": "user-1"], ["userId": "nobody-yet"]] {
                let (options, session) = try await h.signinBegin(begin)
                let reply = try await h.signinComplete(session: session, theirs.assert(options, origin: h.origin))
                expectProblem(reply, status: 400, code: "signin_complete_error", titleContains: "rawId")
            }
            _ = try await h.signIn(["userId": "user-2"], with: &theirs)
        }
    }

    @Test func replayedSession() async throws {
        try await DevServerHarness.with { h in
            var key = SoftwareAuthenticator()
            _ = try await h.register(userId: "user-1", with: &key)
            let (options, session) = try await h.signinBegin(["userId": "user-1"])
            #expect(try await h.signinComplete(session: session, key.assert(options, origin: h.origin)).status == 200)
            expectProblem(try await h.signinComplete(session: session, key.assert(options, origin: h.origin)),
                          status: 403, code: "token_already_used")
            _ = try await h.signIn(["userId": "user-1"], with: &key)
        }
    }

    @Test func sessionOfTheOtherCeremony() async throws {
        try await DevServerHarness.with { h in
            var key = SoftwareAuthenticator()
            _ = try await h.register(userId: "user-1", with: &key)
            let (_, registrationSession) = try await h.registerBegin(token: try await h.registerToken(userId: "user-1"))
            let (options, _) = try await h.signinBegin(["userId": "user-1"])
            expectProblem(try await h.signinComplete(session: registrationSession, key.assert(options, origin: h.origin)),
                          status: 400, code: "invalid_token", titleContains: "/register/begin")
        }
    }

    @Test func expiredSession() async throws {
        try await DevServerHarness.with { h in
            var key = SoftwareAuthenticator()
            _ = try await h.register(userId: "user-1", with: &key)
            let (options, session) = try await h.signinBegin(["userId": "user-1"])
            h.clock.advance(seconds: 121)
            expectProblem(try await h.signinComplete(session: session, key.assert(options, origin: h.origin)),
                          status: 403, code: "expired_token", titleContains: "The token expired")
            _ = try await h.signIn(["userId": "user-1"], with: &key)
        }
    }

    @Test func replayedAndExpiredVerifyTokens() async throws {
        try await DevServerHarness.with { h in
            var key = SoftwareAuthenticator()
            let registered = try await h.register(userId: "user-1", with: &key)
            #expect(try await h.verify(registered).status == 200)
            expectProblem(try await h.verify(registered), status: 403, code: "token_already_used")

            let signedIn = try await h.signIn(["userId": "user-1"], with: &key)
            h.clock.advance(seconds: 121)
            expectProblem(try await h.verify(signedIn), status: 403, code: "expired_token")
            expectProblem(try await h.verify("session_AAAA"), status: 400, code: "invalid_token")
            expectProblem(try await h.secret("POST", "/signin/verify", [String: Any]()), status: 400, code: "missing_token")

            let fresh = try await h.signIn(["userId": "user-1"], with: &key)
            let verified = try await h.verify(fresh)
            #expect(verified.status == 200 && verified.json["userId"] as? String == "user-1", "\(verified)")
        }
    }
}
