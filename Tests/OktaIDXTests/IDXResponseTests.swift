import BoundedJSON
import Base64
import Foundation
import OktaIDX
import Testing
import TestSupport
import WebAuthnJSON

/// The ION reader and the loop's decisions on recorded answers.
@Suite(.ownThreads) struct IDXResponseTests {
    @Test("identify: fields from the server's descriptions, stateHandle filled, a missing identifier refused")
    func identify() throws {
        let response = try IDXFixtures.response("01-introspect-identify")
        #expect(response.stateHandle == "02.id.fixtureStateOne")
        let identify = try #require(response.remediation("identify"))
        #expect(identify.prompts.map(\.path) == ["identifier", "rememberMe"])
        #expect(identify.prompts[0].label == "Username" && identify.prompts[0].required && !identify.prompts[0].secret)
        #expect(identify.prompts[1].type == "boolean")
        guard case .ask(let form) = IDXNextStep.next(response) else { Issue.record("identify is asked"); return }
        #expect(form.name == "identify")
        let body = try identify.body(values: ["identifier": "jane@example.test"], stateHandle: response.stateHandle)
        #expect(body == .object(["identifier": .string("jane@example.test"), "stateHandle": .string("02.id.fixtureStateOne")]))
        #expect(throws: IDXError.missingValue(field: "identifier", label: "Username")) {
            try identify.body(values: [:], stateHandle: response.stateHandle)
        }
        #expect(throws: IDXError.badValue(field: "password", reason: "the `identify` form has no such field to fill")) {
            try identify.body(values: ["identifier": "jane", "password": "x"], stateHandle: response.stateHandle)
        }
        let redirect = try #require(response.remediation("redirect-idp"))
        #expect(redirect.method == "GET" && redirect.idpName == "Corporate IdP")
        #expect(response.cancel?.name == "cancel")
    }

    @Test("select-authenticator-enroll: the security key is chosen by itself; --authenticator picks another")
    func selectEnroll() throws {
        let response = try IDXFixtures.response("02-select-enroll")
        guard case .select(let form, let values) = IDXNextStep.next(response) else { Issue.record("the key is selected"); return }
        #expect(values == ["authenticator": "2"])
        let body = try form.body(values: values, stateHandle: response.stateHandle)
        #expect(body == .object(["authenticator": .object(["id": .string("aut-fixture-webauthn"), "methodType": .string("webauthn")]),
                                 "stateHandle": .string("02.id.fixtureStateTwo")]))
        guard case .select(_, let email) = IDXNextStep.next(response, authenticator: "okta_email") else {
            Issue.record("--authenticator okta_email selects email"); return
        }
        #expect(email == ["authenticator": "1"])
        guard case .stop(let error) = IDXNextStep.next(response, authenticator: "Okta Verify") else {
            Issue.record("an authenticator not offered stops"); return
        }
        #expect(error.description.contains("Security Key or Biometric"))
    }

    @Test("enroll: creation options from activationData (RP ID from u2fParams.appid, base64url challenge and user id)")
    func enroll() throws {
        let response = try IDXFixtures.response("03-enroll-webauthn")
        guard case .enrollWebAuthn(let form) = IDXNextStep.next(response) else { Issue.record("enroll runs on the key"); return }
        let options = try IDXWebAuthn.creationOptions(response, issuerHost: "example.okta.test")
        #expect(options.rp.id == "login.fixture.test")
        #expect(options.rp.name == "Fixture Org")
        #expect(options.challenge.bytes == Base64URL.decode("q83vASNFZ4mrze8BI0VniavN7wEjRWeJ", padding: .refused))
        #expect(options.user.id.bytes == Base64URL.decode("00uFixtureJane000w6A", padding: .refused), "base64url-decoded, as okta-auth-js does")
        // An id that is not base64url goes as its UTF-8 bytes, as okta-mobile-swift sends every id.
        let odd = try IDXResponse.parse(Array(try IDXFixtures.text("03-enroll-webauthn").replacingOccurrences(of: "00uFixtureJane000w6A", with: "00u+odd").utf8),
                                        url: "https://example.okta.test/")
        #expect(try IDXWebAuthn.creationOptions(odd, issuerHost: "example.okta.test").user.id.bytes == Array("00u+odd".utf8))
        #expect(options.user.name == "jane@example.test")
        #expect(options.pubKeyCredParams.map(\.alg) == [-7, -257])
        #expect(options.excludeCredentials.map(\.id.bytes) == [[1, 2, 3, 4]])
        #expect(options.authenticatorSelection?.userVerification == .preferred)
        #expect(options.attestation == .direct)
        let body = try form.body(values: IDXWebAuthn.enrollValues(attestationObject: [0xa0], clientDataJSON: Array("{}".utf8)),
                                 stateHandle: response.stateHandle)
        #expect(body["credentials"] == .object(["attestation": .string("oA"), "clientData": .string("e30")]))
        #expect(form.prompts.isEmpty, "nothing of a WebAuthn form is asked")
    }

    @Test("challenge: request options from challengeData and the webauthn enrollments; standard base64 and base64url alike")
    func challenge() throws {
        let response = try IDXFixtures.response("04-challenge-webauthn")
        guard case .challengeWebAuthn = IDXNextStep.next(response) else { Issue.record("the challenge runs on the key"); return }
        let options = try IDXWebAuthn.requestOptions(response, issuerHost: "example.okta.test")
        #expect(options.rpId == "sso.fixture.test", "extensions.appid's host")
        #expect(options.challenge.bytes.count == 24)
        #expect(options.userVerification == .discouraged)
        // Two webauthn enrollments (the YubiKey OTP one is not webauthn): the same id, once in base64, once in base64url.
        #expect(options.allowCredentials.count == 2)
        #expect(options.allowCredentials[0].id.bytes == [0xfb, 0xfe, 0xfe, 0xfd])
        #expect(options.allowCredentials[1].id.bytes == [0xfb, 0xfe, 0xfe, 0xfd])
        #expect(options.allowCredentials[0].transports?.map(\.rawValue) == ["usb", "nfc"], "transports as a JSON string in profile")
        #expect(options.allowCredentials[1].transports?.map(\.rawValue) == ["usb"])
        #expect(IDXWebAuthn.decode("+/8=") == [0xfb, 0xff] && IDXWebAuthn.decode("-_8") == [0xfb, 0xff])
        #expect(IDXWebAuthn.decode("not base64!") == nil)
    }

    @Test("the RP ID: rp.id, then rpId, then u2fParams.appid's host, extensions.appid's host, the issuer's host")
    func rpIdChain() {
        func json(_ text: String) -> JSONValue { (try? JSONValue.parse(Array(text.utf8), within: .idxAnswer).get()) ?? .null }
        #expect(IDXWebAuthn.rpId(json(#"{"rp":{"id":"a.test"},"rpId":"b.test"}"#), issuerHost: "i.test") == "a.test")
        #expect(IDXWebAuthn.rpId(json(#"{"rpId":"b.test","u2fParams":{"appid":"https://c.test"}}"#), issuerHost: "i.test") == "b.test")
        #expect(IDXWebAuthn.rpId(json(#"{"u2fParams":{"appid":"https://c.test:8443"}}"#), issuerHost: "i.test") == "c.test")
        #expect(IDXWebAuthn.rpId(json(#"{"extensions":{"appid":"https://d.test"}}"#), issuerHost: "i.test") == "d.test")
        #expect(IDXWebAuthn.rpId(json(#"{}"#), issuerHost: "i.test") == "i.test")
    }

    @Test("a password: asked as a secret; a wrong one comes back as the field's message and is asked again")
    func password() throws {
        let response = try IDXFixtures.response("05-challenge-password")
        guard case .ask(let form) = IDXNextStep.next(response) else { Issue.record("the password is asked"); return }
        #expect(form.prompts.map(\.path) == ["credentials.passcode"])
        #expect(form.prompts[0].secret)
        let body = try form.body(values: ["credentials.passcode": "pw"], stateHandle: response.stateHandle)
        #expect(body["credentials"] == .object(["passcode": .string("pw")]))

        let wrong = try IDXFixtures.response("06-password-invalid")
        guard case .ask(let again) = IDXNextStep.next(wrong) else { Issue.record("asked again"); return }
        #expect(again.prompts[0].messages.map(\.text) == ["Password is incorrect"])
        #expect(wrong.allMessages.map(\.text) == ["Password: Password is incorrect"])
    }

    @Test("the session expired: start again; an unknown form stops naming it; only an external IdP needs the browser")
    func stops() throws {
        let expired = try IDXFixtures.response("07-session-expired")
        #expect(expired.isSessionExpired)
        #expect(IDXNextStep.next(expired) == .restart)

        let unknown = try IDXFixtures.response("08-unknown-remediation")
        guard case .stop(let error) = IDXNextStep.next(unknown) else { Issue.record("an unknown form stops"); return }
        #expect(error.description.contains("device-challenge-poll"))

        var onlyIdP = try IDXFixtures.response("01-introspect-identify")
        onlyIdP.remediations.removeAll { $0.name == "identify" }
        #expect(IDXNextStep.next(onlyIdP) == .browserNeeded(idps: ["Corporate IdP"]))

        let success = try IDXFixtures.response("09-success")
        guard case .exchange(let issue) = IDXNextStep.next(success) else { Issue.record("success exchanges"); return }
        #expect(issue.field("interaction_code")?.value?.string == "fixture-interaction-code")
    }

    @Test("hostile answers are refused with the member at fault: deep, huge, many, wrong types, odd names")
    func hostile() throws {
        func problem(_ text: String) -> String? {
            do {
                _ = try IDXResponse.parse(Array(text.utf8), url: "https://example.okta.test/idp/idx/introspect?secret=1")
                return nil
            } catch {
                #expect(!error.description.contains("secret=1"), "no query in a message")
                return error.description
            }
        }
        #expect(problem(String(repeating: "[", count: 40) + String(repeating: "]", count: 40))?.contains("nests more than") == true)
        #expect(problem("{\"x\":\"" + String(repeating: "a", count: JSONLimits.idxAnswer.maximumBytes) + "\"}")?.contains("larger than") == true)
        #expect(problem("[" + Array(repeating: "1", count: JSONLimits.idxAnswer.maximumValues + 1).joined(separator: ",") + "]")?.contains("values") == true)
        #expect(problem("not json")?.contains("not JSON") == true)
        #expect(problem("[]")?.contains("not a JSON object") == true)
        let fields = (0..<100).map { "{\"name\":\"f\($0)\"}" }.joined(separator: ",")
        #expect(problem(#"{"remediation":{"value":[{"name":"x","href":"https://e.test/","value":["# + fields + "]}]}}")?.contains("more than 64 fields") == true)
        #expect(problem(#"{"remediation":{"value":[{"name":"x","href":"https://e.test/","value":[{"name":"a.b"}]}]}}"#)?
            .contains("remediation.value[0].value[0].name") == true)
        #expect(problem(#"{"remediation":{"value":[{"name":"x","href":"https://e.test/","value":[{"name":"a","required":"yes"}]}]}}"#)?
            .contains("`remediation.value[0].value[0].required` should be true or false") == true)
        #expect(problem(#"{"remediation":{"value":[{"name":"x"}]}}"#)?.contains("`remediation.value[0].href` is missing") == true)
        #expect(problem(#"{"stateHandle":"a\nb"}"#)?.contains("stateHandle") == true)
        #expect(problem(#"{"messages":{"value":[{"class":"ERROR"}]}}"#)?.contains("messages.value[0].message") == true)
        var nested = #"{"name":"leaf"}"#
        for level in 0..<6 { nested = #"{"name":"n\#(level)","form":{"value":[\#(nested)]}}"# }
        #expect(problem(#"{"remediation":{"value":[{"name":"x","href":"https://e.test/","value":[\#(nested)]}]}}"#)?.contains("nests forms") == true)
        // A choice out of range is refused before anything is sent.
        let select = try #require(try IDXFixtures.response("02-select-enroll").remediation("select-authenticator-enroll"))
        #expect(throws: IDXError.self) { try select.body(values: ["authenticator": "9"], stateHandle: "s") }
        // A fixed value cannot be overridden.
        let identify = try #require(try IDXFixtures.response("01-introspect-identify").remediation("identify"))
        #expect(throws: IDXError.self) { try identify.body(values: ["identifier": "j", "stateHandle": "other"], stateHandle: "s") }
    }
}
