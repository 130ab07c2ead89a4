import DevServer
import DevServerTestSupport
import Foundation
import Testing
import TestSupport
import WebAuthn

/// Each way the IDX subset refuses, with Okta's message shapes: a wrong
/// password, an expired stateHandle, a replayed interaction code, a wrong
/// PKCE verifier, an assertion from a key not enrolled for the user, a
/// reused challenge, a bad enrollment; and cancel, which starts again.
@Suite(.ownThreads) struct IDXRefusalTests {
    @Test func aWrongPasswordIsAFieldErrorAndTheRightOneEnrollsThenSignsIn() async throws {
        try await IDXHarness.with { idx in
            let start = try await idx.start()
            // bob has a password and no key: the password first, then enroll a key.
            let password = try await idx.identify(start.answer, "bob")
            #expect(password.remediationNames == ["challenge-authenticator"], "\(password)")
            let passcode = try #require(((try password.remediation("challenge-authenticator")["value"] as? [[String: Any]])?
                .first?["form"] as? [String: Any])?["value"] as? [[String: Any]])
            #expect(passcode.first?["secret"] as? Bool == true)
            let wrong = try await idx.proceed(password, "challenge-authenticator", ["credentials": ["passcode": "not it"]])
            #expect(wrong.status == 401, "\(wrong)")
            #expect(wrong.fieldMessageKeys("challenge-authenticator", ["credentials", "passcode"]) == ["incorrectPassword"], "\(wrong)")
            #expect(wrong.remediationNames == ["challenge-authenticator"])
            let right = try await idx.proceed(wrong, "challenge-authenticator", ["credentials": ["passcode": IDXHarness.password]])
            #expect(right.remediationNames == ["select-authenticator-enroll"], "\(right)")
            var key = SoftwareAuthenticator()
            let enrolling = try await idx.select(right, "select-authenticator-enroll", key: "webauthn")
            let done = try await idx.proceed(enrolling, "enroll-authenticator", try idx.attestation(enrolling, key: &key, base64url: true))
            #expect(done.status == 200, "\(done)")

            // Now bob chooses: the key or the password, each enough to sign in.
            let next = try await idx.start()
            let selection = try await idx.identify(next.answer, "bob")
            let offered = ((selection.json["authenticators"] as? [String: Any])?["value"] as? [[String: Any]])?.compactMap { $0["key"] as? String }
            #expect(offered == ["webauthn", "okta_password"], "\(selection)")
            let challenge = try await idx.select(selection, "select-authenticator-authenticate", key: "okta_password")
            let signedIn = try await idx.proceed(challenge, "challenge-authenticator", ["credentials": ["passcode": IDXHarness.password]])
            let tokens = try await idx.redeem(try idx.interactionCode(signedIn), verifier: next.verifier)
            #expect(tokens.status == 200, "\(tokens)")

            // The single-form identify with credentials.passcode.
            let single = try await idx.start()
            let bad = try await idx.proceed(single.answer, "identify", ["identifier": "bob", "credentials": ["passcode": "nope"]])
            #expect(bad.status == 401 && bad.messageKeys == ["incorrectPassword"], "\(bad)")
            let good = try await idx.proceed(bad, "identify", ["identifier": "bob", "credentials": ["passcode": IDXHarness.password]])
            #expect(good.json["successWithInteractionCode"] != nil, "\(good)")
        }
    }

    @Test func anUnknownUserIsAFieldErrorOnTheIdentifier() async throws {
        try await IDXHarness.with { idx in
            let start = try await idx.start()
            let answer = try await idx.identify(start.answer, "mallory")
            #expect(answer.status == 400)
            #expect(answer.fieldMessageKeys("identify", ["identifier"]) == ["idx.unknown.user"], "\(answer)")
            let blank = try await idx.proceed(start.answer, "identify", [:])
            #expect(blank.fieldMessageKeys("identify", ["identifier"]) == ["model.validation.field.blank"], "\(blank)")
        }
    }

    @Test func anExpiredStateHandleAnswersSessionExpired() async throws {
        try await IDXHarness.with({ $0.idx.stateLifetime = .seconds(60) }) { idx in
            let start = try await idx.start()
            idx.h.clock.advance(seconds: 61)
            for answer in [try await idx.identify(start.answer, "alice"),
                           try await idx.postJSON("/idp/idx/introspect", ["interactionHandle": start.handle]),
                           try await idx.postJSON("/idp/idx/introspect", ["stateToken": try #require(start.answer.stateHandle)])] {
                #expect(answer.status == 401, "\(answer)")
                #expect(answer.messageKeys == ["idx.session.expired"])
                #expect(answer.messageTexts == ["The session has expired."])
                #expect(answer.stateHandle == nil && answer.remediations.isEmpty)
            }
            let forged = try await idx.postJSON("/idp/idx/identify", ["identifier": "alice", "stateHandle": "02.id.forged"])
            #expect(forged.messageKeys == ["idx.session.expired"], "\(forged)")
        }
    }

    @Test func anInteractionCodeIsSingleUseAndPKCEChecked() async throws {
        try await IDXHarness.with { idx in
            var key = SoftwareAuthenticator()
            let (start, success) = try await idx.enroll("alice", key: &key)
            let code = try idx.interactionCode(success)
            // A wrong verifier spends the code: Okta's answer, then a replay.
            let wrong = try await idx.redeem(code, verifier: OAuthHarness.pkce().verifier)
            OAuthHarness.expectError(wrong, "invalid_grant")
            #expect(wrong.json["error_description"] as? String == "PKCE verification failed.")
            OAuthHarness.expectError(try await idx.redeem(code, verifier: start.verifier), "invalid_grant")

            let (again, second) = try await idx.signIn("alice", key: &key)
            let code2 = try idx.interactionCode(second)
            let first = try await idx.redeem(code2, verifier: again.verifier)
            #expect(first.status == 200, "\(first)")
            let replay = try await idx.redeem(code2, verifier: again.verifier)
            OAuthHarness.expectError(replay, "invalid_grant")
            // The replay revoked what the first redemption issued.
            OAuthHarness.expectError(try await idx.oauth.refresh(try #require(first.json["refresh_token"] as? String)), "invalid_grant")
            // An interaction code is not an authorization code.
            let (third, success3) = try await idx.signIn("alice", key: &key)
            OAuthHarness.expectError(try await idx.oauth.redeem(code: try idx.interactionCode(success3), verifier: third.verifier),
                                     "invalid_grant")
        }
    }

    @Test func anAssertionFromAKeyNotEnrolledForTheUserIsRefused() async throws {
        try await IDXHarness.with { idx in
            var aliceKey = SoftwareAuthenticator(), carolKey = SoftwareAuthenticator()
            _ = try await idx.enroll("alice", key: &aliceKey)
            _ = try await idx.enroll("carol", key: &carolKey)
            // carol's key answering alice's challenge: enrolled, but not for alice.
            let start = try await idx.start()
            let challenge = try await idx.select(try await idx.identify(start.answer, "alice"), "select-authenticator-authenticate", key: "webauthn")
            let refused = try await idx.proceed(challenge, "challenge-authenticator", try idx.assertion(challenge, key: &carolKey))
            #expect(refused.status == 401, "\(refused)")
            #expect(refused.messageKeys == ["devserver.webauthn.not_enrolled"], "\(refused)")
            // The wrong origin, with alice's own key, names the check.
            let wrongOrigin = try await idx.proceed(refused, "challenge-authenticator",
                                                    try idx.assertion(refused, key: &aliceKey, origin: "https://evil.example"))
            #expect(wrongOrigin.messageKeys == ["devserver.webauthn.invalid_assertion"], "\(wrongOrigin)")
            #expect(wrongOrigin.messageTexts.first?.contains("origin") == true, "\(wrongOrigin)")
            // An Origin header of another site is refused before anything is verified.
            let header = try await idx.proceed(wrongOrigin, "challenge-authenticator", try idx.assertion(wrongOrigin, key: &aliceKey),
                                               headers: ["Origin": "https://evil.example"])
            #expect(header.status == 403 && header.messageKeys == ["devserver.idx.origin_not_allowed"], "\(header)")
            let accepted = try await idx.proceed(header, "challenge-authenticator", try idx.assertion(header, key: &aliceKey),
                                                 headers: ["Origin": idx.origin])
            #expect(accepted.json["successWithInteractionCode"] != nil, "\(accepted)")
        }
    }

    @Test func aChallengeIsSpentByItsFirstAnswer() async throws {
        try await IDXHarness.with { idx in
            var key = SoftwareAuthenticator()
            _ = try await idx.enroll("alice", key: &key)
            let start = try await idx.start()
            let challenge = try await idx.select(try await idx.identify(start.answer, "alice"), "select-authenticator-authenticate", key: "webauthn")
            let good = try idx.assertion(challenge, key: &key)
            // A first answer with a corrupted signature spends the challenge...
            var tampering = SoftwareAuthenticator.Tampering()
            tampering.corruptSignature = true
            let broken = try await idx.proceed(challenge, "challenge-authenticator", try idx.assertion(challenge, key: &key, tampering: tampering))
            #expect(broken.status == 401, "\(broken)")
            let fresh = try #require(broken.currentContext?["challengeData"] as? [String: Any])["challenge"] as? String
            let old = try #require(challenge.currentContext?["challengeData"] as? [String: Any])["challenge"] as? String
            #expect(fresh != nil && fresh != old)
            // ...so the good assertion over it is refused: the transaction now holds another challenge.
            let reused = try await idx.proceed(challenge, "challenge-authenticator", good)
            #expect(reused.messageKeys == ["devserver.webauthn.invalid_assertion"], "\(reused)")
            #expect(reused.messageTexts.first?.contains("challenge") == true, "\(reused)")
            // The fresh challenge answered: signed in, and the key's counter stored.
            let done = try await idx.proceed(reused, "challenge-authenticator", try idx.assertion(reused, key: &key))
            #expect(done.json["successWithInteractionCode"] != nil, "\(done)")
            // A counter that does not move on past the stored one is a cloned key.
            let next = try await idx.start()
            let again = try await idx.select(try await idx.identify(next.answer, "alice"), "select-authenticator-authenticate", key: "webauthn")
            tampering = SoftwareAuthenticator.Tampering()
            tampering.signCount = 1
            let counter = try await idx.proceed(again, "challenge-authenticator", try idx.assertion(again, key: &key, tampering: tampering))
            #expect(counter.messageTexts.first?.contains("signCount") == true, "\(counter)")
        }
    }

    @Test func aBadEnrollmentIsRefusedAndAKeyEnrollsOnce() async throws {
        try await IDXHarness.with { idx in
            var key = SoftwareAuthenticator()
            let start = try await idx.start()
            let enrolling = try await idx.select(try await idx.identify(start.answer, "alice"), "select-authenticator-enroll", key: "webauthn")
            var tampering = SoftwareAuthenticator.Tampering()
            tampering.rpId = "evil.example"
            let wrongRp = try await idx.proceed(enrolling, "enroll-authenticator", try idx.attestation(enrolling, key: &key, tampering: tampering))
            #expect(wrongRp.status == 400 && wrongRp.messageKeys == ["devserver.webauthn.invalid_registration"], "\(wrongRp)")
            #expect(wrongRp.messageTexts.first?.contains("rpIdHash") == true, "\(wrongRp)")
            let notBase64 = try await idx.proceed(wrongRp, "enroll-authenticator", ["credentials": ["attestation": "%%%", "clientData": "e30"]])
            #expect(notBase64.fieldMessageKeys("enroll-authenticator", ["credentials", "attestation"]) == ["devserver.idx.invalid_encoding"],
                    "\(notBase64)")
            // packed self attestation, in base64: enrolled.
            let done = try await idx.proceed(notBase64, "enroll-authenticator", try idx.attestation(notBase64, key: &key, attestation: .packedSelf))
            #expect(done.json["successWithInteractionCode"] != nil, "\(done)")
            // The same key for carol: taken.
            let other = try await idx.start()
            let carol = try await idx.select(try await idx.identify(other.answer, "carol"), "select-authenticator-enroll", key: "webauthn")
            let taken = try await idx.proceed(carol, "enroll-authenticator", try idx.attestation(carol, key: &key))
            #expect(taken.messageTexts.first?.contains("already enrolled") == true, "\(taken)")
        }
    }

    @Test func cancelStartsAgainUnderANewStateHandle() async throws {
        try await IDXHarness.with { idx in
            let start = try await idx.start()
            let selection = try await idx.identify(start.answer, "alice")
            let cancel = try #require(selection.json["cancel"] as? [String: Any])
            let fresh = try await idx.postJSON(try idx.path(of: try #require(cancel["href"] as? String)),
                                               ["stateHandle": try #require(selection.stateHandle)])
            #expect(fresh.status == 200, "\(fresh)")
            #expect(fresh.remediationNames == ["identify"])
            #expect(fresh.stateHandle != nil && fresh.stateHandle != selection.stateHandle)
            #expect(fresh.json["user"] == nil)
            // The old stateHandle is over; the interaction handle now finds the new one.
            let old = try await idx.postJSON("/idp/idx/identify", ["identifier": "alice", "stateHandle": try #require(selection.stateHandle)])
            #expect(old.messageKeys == ["idx.session.expired"], "\(old)")
            let again = try await idx.postJSON("/idp/idx/introspect", ["interactionHandle": start.handle])
            #expect(again.stateHandle == fresh.stateHandle, "\(again)")
            // A remediation the state does not offer is named.
            let notNow = try await idx.postJSON("/idp/idx/challenge/answer", ["stateHandle": try #require(fresh.stateHandle),
                                                                              "credentials": ["passcode": "x"]])
            #expect(notNow.status == 400 && notNow.messageKeys == ["devserver.idx.remediation_not_offered"], "\(notNow)")
        }
    }

    @Test func interactRequiresPKCEAndAKnownClientAndRedirect() async throws {
        try await IDXHarness.with { idx in
            let (_, challenge) = OAuthHarness.pkce()
            let good: [(String, String)] = [("client_id", "cli"), ("scope", "openid"), ("redirect_uri", OAuthHarness.redirect),
                                            ("code_challenge", challenge), ("code_challenge_method", "S256"), ("state", "s")]
            func without(_ name: String) -> [(String, String)] { good.filter { $0.0 != name } }
            let noPKCE = try await idx.oauth.post(idx.oauth.base + "/v1/interact", without("code_challenge"))
            OAuthHarness.expectError(noPKCE, "invalid_request")
            #expect(noPKCE.json["error_description"] as? String
                    == "PKCE code challenge is required when the token endpoint authentication method is 'NONE'.")
            OAuthHarness.expectError(try await idx.oauth.post(idx.oauth.base + "/v1/interact",
                                                              without("code_challenge_method") + [("code_challenge_method", "plain")]),
                                     "invalid_request")
            OAuthHarness.expectError(try await idx.oauth.post(idx.oauth.base + "/v1/interact",
                                                              without("client_id") + [("client_id", "stranger")]),
                                     "invalid_client", status: 401)
            OAuthHarness.expectError(try await idx.oauth.post(idx.oauth.base + "/v1/interact",
                                                              without("redirect_uri") + [("redirect_uri", "http://evil.example/cb")]),
                                     "invalid_request")
            OAuthHarness.expectError(try await idx.oauth.post(idx.oauth.base + "/v1/interact", without("scope") + [("scope", "admin")]),
                                     "invalid_scope")
            #expect(try await idx.oauth.post(idx.oauth.base + "/v1/interact", good).status == 200)
        }
    }
}
