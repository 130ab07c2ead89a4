import Base64
import DevServer
import DevServerTestSupport
import Foundation
import Testing
import TestSupport
import WebAuthn

/// The IDX subset's happy paths over HTTP: a new user enrolls a security key
/// (identify → select-authenticator-enroll → enroll-authenticator), then signs
/// in with it (identify → select-authenticator-authenticate →
/// challenge-authenticator), and the interaction code buys the code flow's tokens.
@Suite(.ownThreads) struct IDXFlowTests {
    @Test func aNewUserEnrollsAKeyThenSignsInWithIt() async throws {
        try await IDXHarness.with { idx in
            var key = SoftwareAuthenticator()
            let (enrolled, success) = try await idx.enroll("alice", key: &key)
            #expect(success.contentType == "application/ion+json; okta-version=1.0.0")
            let issue = try #require(success.json["successWithInteractionCode"] as? [String: Any])
            #expect(issue["name"] as? String == "issue")
            #expect(issue["href"] as? String == idx.oauth.issuer + "/v1/token")
            #expect(issue["accepts"] as? String == "application/x-www-form-urlencoded")
            let tokens = try await idx.redeem(try idx.interactionCode(success), verifier: enrolled.verifier)
            #expect(tokens.status == 200, "\(tokens)")
            #expect(tokens.json["refresh_token"] is String)
            let idToken = try await idx.oauth.verifiedIDToken(try #require(tokens.json["id_token"] as? String))
            #expect(idToken.claims.nonce == "idx-nonce")
            let userId = try #require(((success.json["user"] as? [String: Any])?["value"] as? [String: Any])?["id"] as? String)
            #expect(idToken.claims.sub.value == userId)

            // Signing in: the enrollment is listed with its credential id, and the key's assertion completes it.
            let start = try await idx.start()
            let selection = try await idx.identify(start.answer, "alice")
            #expect(selection.remediationNames == ["select-authenticator-authenticate"], "\(selection)")
            let enrollments = try #require((selection.json["authenticatorEnrollments"] as? [String: Any])?["value"] as? [[String: Any]])
            #expect(enrollments.first { $0["key"] as? String == "webauthn" }?["credentialId"] as? String == Base64URL.encode(key.credentialId))
            let challenge = try await idx.select(selection, "select-authenticator-authenticate", key: "webauthn")
            #expect(challenge.remediationNames == ["challenge-authenticator", "select-authenticator-authenticate"], "\(challenge)")
            let data = try #require(challenge.currentContext?["challengeData"] as? [String: Any])
            #expect((data["extensions"] as? [String: Any])?["appid"] as? String == idx.origin)
            // base64url this time: both encodings are read.
            let done = try await idx.proceed(challenge, "challenge-authenticator", try idx.assertion(challenge, key: &key, base64url: true))
            #expect(done.status == 200, "\(done)")
            let signedIn = try await idx.redeem(try idx.interactionCode(done), verifier: start.verifier)
            #expect(signedIn.status == 200, "\(signedIn)")
            // The refresh token rotates as the code flow's does.
            let refreshed = try await idx.oauth.refresh(try #require(signedIn.json["refresh_token"] as? String))
            #expect(refreshed.status == 200, "\(refreshed)")
        }
    }

    @Test func theAnswersHaveOktasShapes() async throws {
        try await IDXHarness.with { idx in
            let start = try await idx.start()
            let answer = start.answer
            #expect(answer.json["version"] as? String == "1.0.0")
            #expect(answer.json["intent"] as? String == "LOGIN")
            #expect((answer.stateHandle ?? "").hasPrefix("02.id."))
            #expect(answer.json["expiresAt"] is String)
            let identify = try answer.remediation("identify")
            #expect(identify["rel"] as? [String] == ["create-form"])
            #expect(identify["href"] as? String == idx.origin + "/idp/idx/identify")
            #expect(identify["accepts"] as? String == "application/json; okta-version=1.0.0")
            let fields = try #require(identify["value"] as? [[String: Any]])
            #expect(fields.compactMap { $0["name"] as? String } == ["identifier", "rememberMe", "stateHandle"])
            let stateField = try #require(fields.last)
            #expect(stateField["visible"] as? Bool == false && stateField["mutable"] as? Bool == false && stateField["required"] as? Bool == true)
            #expect((answer.json["cancel"] as? [String: Any])?["href"] as? String == idx.origin + "/idp/idx/cancel")

            // Enrollment's activation data: no rp.id (the client derives it from u2fParams.appid), user, challenge, algorithms.
            let selection = try await idx.identify(answer, "alice")
            let option = try #require(((try selection.remediation("select-authenticator-enroll")["value"] as? [[String: Any]])?
                .first?["options"] as? [[String: Any]])?.first)
            #expect(option["relatesTo"] as? String == "$.authenticators.value[0]")
            let enrolling = try await idx.select(selection, "select-authenticator-enroll", key: "webauthn")
            #expect(try enrolling.remediation("enroll-authenticator")["relatesTo"] as? [String] == ["$.currentAuthenticator"])
            let activation = try #require(enrolling.currentContext?["activationData"] as? [String: Any])
            #expect((activation["rp"] as? [String: Any])?["id"] == nil)
            #expect((activation["u2fParams"] as? [String: Any])?["appid"] as? String == idx.origin)
            #expect((activation["pubKeyCredParams"] as? [[String: Any]])?.compactMap { $0["alg"] as? Int } == [-7, -257])
            #expect(activation["attestation"] as? String == "direct")
            #expect(((activation["user"] as? [String: Any])?["id"] as? String)?.hasPrefix("00u") == true)
            #expect((activation["challenge"] as? String).flatMap { Base64URL.decode($0, padding: .refused) }?.count == 32)
        }
    }

    @Test func aConfiguredRPIDIsSentAndAnotherOriginAllowed() async throws {
        let rpId = "login.passkey.test", origin = "https://login.passkey.test"
        try await IDXHarness.with({ $0.idx.rpId = rpId; $0.idx.origins = [origin] }) { base in
            var idx = base
            idx.rpId = rpId
            var key = SoftwareAuthenticator()
            let start = try await idx.start()
            let enrolling = try await idx.select(try await idx.identify(start.answer, "alice"), "select-authenticator-enroll", key: "webauthn")
            let activation = try #require(enrolling.currentContext?["activationData"] as? [String: Any])
            #expect((activation["rp"] as? [String: Any])?["id"] as? String == rpId)
            let done = try await idx.proceed(enrolling, "enroll-authenticator", try idx.attestation(enrolling, key: &key, origin: origin))
            #expect(done.json["successWithInteractionCode"] != nil, "\(done)")

            let next = try await idx.start()
            let challenge = try await idx.select(try await idx.identify(next.answer, "alice"), "select-authenticator-authenticate", key: "webauthn")
            #expect((challenge.currentContext?["challengeData"] as? [String: Any])?["rpId"] as? String == rpId)
            // The issuer's origin stays allowed; the RP ID must be the configured one.
            var tampering = SoftwareAuthenticator.Tampering()
            tampering.rpId = "127.0.0.1"
            let wrongRp = try await idx.proceed(challenge, "challenge-authenticator", try idx.assertion(challenge, key: &key, tampering: tampering))
            #expect(wrongRp.messageTexts.first?.contains("rpIdHash") == true, "\(wrongRp)")
            let signedIn = try await idx.proceed(wrongRp, "challenge-authenticator", try idx.assertion(wrongRp, key: &key))
            #expect(signedIn.json["successWithInteractionCode"] != nil, "\(signedIn)")
        }
    }
}
