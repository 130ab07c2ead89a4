import Base64
import DevServer
import DevServerTestSupport
import Foundation
import Testing
import TestSupport
import WebAuthn

/// The happy paths, as a backend and a client would run them.
@Suite(.ownThreads) struct CeremonyTests {
    @Test func registerThenSignInByAliasUserIdAndDiscoverable() async throws {
        try await DevServerHarness.with { h in
            var key = SoftwareAuthenticator()
            let registered = try await h.register(userId: "user-1", with: &key, ["aliases": ["ada@example.com"], "aliasHashing": false])
            let verifiedRegistration = try await h.verify(registered)
            #expect(verifiedRegistration.status == 200, "\(verifiedRegistration)")
            #expect(verifiedRegistration.json["type"] as? String == "passkey_register")
            #expect(verifiedRegistration.json["userId"] as? String == "user-1")
            #expect(verifiedRegistration.json["success"] as? Bool == true)
            #expect(verifiedRegistration.json["credentialId"] as? String == Data(key.credentialId).base64EncodedString())

            for (body, discoverable) in [(["alias": "ada@example.com"], false), (["userId": "user-1"], false), ([:], true)] {
                let (options, session) = try await h.signinBegin(body)
                #expect(options.rpId == "localhost")
                #expect(options.challenge.bytes.count == 16)
                #expect(options.timeout == 60000)
                #expect(options.userVerification == .preferred)
                #expect(options.allowCredentials.map(\.id.bytes) == (discoverable ? [] : [key.credentialId]))
                let reply = try await h.signinComplete(session: session, key.assert(options, origin: h.origin))
                #expect(reply.status == 200, "\(reply)")
                let token = try #require(reply.json["token"] as? String)
                #expect(token.hasPrefix("verify_"))
                let verified = try await h.verify(token)
                #expect(verified.status == 200, "\(verified)")
                #expect(verified.json["type"] as? String == "passkey_signin")
                #expect(verified.json["userId"] as? String == "user-1")
                #expect(verified.json["rpId"] as? String == "localhost")
                #expect(verified.json["origin"] as? String == "https://localhost")
                #expect(verified.json["purpose"] as? String == "sign-in")
                #expect((verified.json["tokenId"] as? String)?.count == 36)
                #expect(verified.json.keys.contains("nickname") && verified.json.keys.contains("country"))
            }

            // The counter the last assertion carried is what the server stored.
            let list = try await h.secret("GET", "/credentials/list?userId=user-1")
            let values = try #require(list.json["values"] as? [[String: Any]])
            #expect(values.count == 1)
            #expect(values.first?["signatureCounter"] as? Int == Int(key.signCount))
            #expect((values.first?["descriptor"] as? [String: Any])?["id"] as? String == Base64URL.encode(key.credentialId))
            #expect(values.first?["isDiscoverable"] as? Bool == true)
            #expect(values.first?["userHandle"] as? String == Data("user-1".utf8).base64EncodedString())
        }
    }

    @Test func creationOptionsFollowTheRegisterToken() async throws {
        try await DevServerHarness.with { h in
            var key = SoftwareAuthenticator()
            _ = try await h.register(userId: "existing", with: &key)
            let token = try await h.registerToken(userId: "existing", [
                "displayName": "Ada L.", "attestation": "direct", "discoverable": false,
                "userVerification": "required", "hints": ["security-key"],
            ])
            let (options, session) = try await h.registerBegin(token: token)
            #expect(options.rp.id == "localhost" && options.rp.name == "localhost")
            #expect(options.user.id.bytes == Array("existing".utf8))
            #expect(options.user.name == "existing@example.com")
            #expect(options.user.displayName == "Ada L.")
            #expect(options.challenge.bytes.count == 16)
            #expect(options.allowedAlgorithms == [-8, -7, -257])
            #expect(options.timeout == 60000)
            #expect(options.attestation == .direct)
            #expect(options.attestationFormats == [])
            #expect(options.authenticatorSelection?.residentKey == .discouraged)
            #expect(options.authenticatorSelection?.requireResidentKey == false)
            #expect(options.authenticatorSelection?.userVerification == .required)
            #expect(options.authenticatorSelection?.authenticatorAttachment == .crossPlatform)
            #expect(options.hints == [.securityKey])
            #expect(options.excludeCredentials.map(\.id.bytes) == [key.credentialId])
            #expect(options.excludeCredentials.first?.transports == [.usb])
            #expect(options.extensions?.credProps == true)
            #expect(session.hasPrefix("session_"))
        }
    }

    /// Names bind case-insensitively, `extensions` stands in for
    /// `clientExtensionResults`, numbers bind as strings, and `transports` may be absent.
    @Test func requestNamesBindAsTheHostedAPIBindsThem() async throws {
        try await DevServerHarness.with { h in
            let tokenReply = try await h.secret("POST", "/register/token", ["USERID": 42, "UserName": "answer", "displayname": "D"])
            #expect(tokenReply.status == 200, "\(tokenReply)")
            let token = try #require(tokenReply.json["token"] as? String)
            let begin = try await h.publicAPI("/register/begin", ["TOKEN": token, "rpid": h.rpId, "origin": h.origin])
            #expect(begin.status == 200, "\(begin)")
            let envelope = try JSONDecoder().decode(Envelope<PublicKeyCredentialCreationOptionsJSON>.self, from: Data(begin.body))
            #expect(envelope.data.user.id.bytes == Array("42".utf8))
            var key = SoftwareAuthenticator()
            let response = key.register(envelope.data, origin: h.origin)
            // As the js client and the iOS SDK spell it.
            let legacy: [String: Any] = [
                "Id": response.id, "RawId": response.rawId.base64URL, "Type": "public-key",
                "Response": ["AttestationObject": response.response.attestationObject.base64URL,
                             "clientDataJson": response.response.clientDataJSON.base64URL],
                "extensions": ["credProps": ["rk": false]],
            ]
            let complete = try await h.publicAPI("/register/complete", ["Session": envelope.session, "response": legacy,
                                                                       "RPID": h.rpId, "ORIGIN": h.origin, "Nickname": "yubi"])
            #expect(complete.status == 200, "\(complete)")
            let list = try await h.secret("POST", "/credentials/list", ["userid": 42])
            let credential = try #require((list.json["values"] as? [[String: Any]])?.first)
            #expect(credential["isDiscoverable"] as? Bool == false)
            #expect((credential["descriptor"] as? [String: Any])?["transports"] as? [String] == [])
            #expect(credential["nickname"] as? String == "yubi")
        }
    }

    @Test func malformedBodiesAreInvalidArgumentNamingTheField() async throws {
        try await DevServerHarness.with { h in
            let token = try await h.registerToken(userId: "u")
            let (options, session) = try await h.registerBegin(token: token)
            var key = SoftwareAuthenticator()
            var response = try #require(h.jsonObject(key.register(options, origin: h.origin)) as? [String: Any])
            response["rawId"] = "not+base64url"
            let reply = try await h.publicAPI("/register/complete", ["session": session, "response": response, "Origin": h.origin])
            expectProblem(reply, status: 400, code: "invalid_argument", titleContains: "rawId")
            let empty = try await h.client.send("POST", "/signin/begin", headers: ["ApiKey": h.apiKey], body: Array("{".utf8))
            expectProblem(empty, status: 400, code: "invalid_argument")
        }
    }
}
