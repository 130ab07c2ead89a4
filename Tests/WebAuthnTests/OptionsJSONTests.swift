import FoundationEssentials
import Testing
import TestSupport
import WebAuthn

/// Options as real relying-party libraries emit them must decode, keep their
/// meaning through an encode/decode round trip, and ignore what the
/// specification says clients ignore.
@Suite(.ownThreads) struct OptionsJSONTests {
    func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }

    /// fido2-net-lib 4.0 as passwordless.dev sends it: `status`/`errorMessage`,
    /// `requireResidentKey`, empty `attestationFormats` and `hints`, ten algorithms.
    @Test func fido2NetLibCreationOptions() throws {
        let json = """
        {"status":"ok","errorMessage":"","rp":{"id":"localhost","name":"localhost"},
         "user":{"name":"ada@example.com","id":"dXNlci0x","displayName":"Ada"},
         "challenge":"q83vEjRWeJCrze8SNFZ4kA","pubKeyCredParams":[
          {"type":"public-key","alg":-8},{"type":"public-key","alg":-7},{"type":"public-key","alg":-257},
          {"type":"public-key","alg":-37},{"type":"public-key","alg":-35},{"type":"public-key","alg":-258},
          {"type":"public-key","alg":-38},{"type":"public-key","alg":-36},{"type":"public-key","alg":-259},
          {"type":"public-key","alg":-39}],
         "timeout":60000,"attestation":"none","attestationFormats":[],
         "authenticatorSelection":{"residentKey":"required","requireResidentKey":true,"userVerification":"preferred"},
         "hints":[],"excludeCredentials":[{"type":"public-key","id":"AQIDBA"}],"extensions":{"credProps":true}}
        """
        let options = try decode(PublicKeyCredentialCreationOptionsJSON.self, json)
        #expect(options.rp.id == "localhost")
        #expect(options.user.id.bytes == Array("user-1".utf8))
        #expect(options.challenge.bytes.count == 16)
        #expect(options.pubKeyCredParams.count == 10)
        #expect(options.allowedAlgorithms.prefix(3) == [-8, -7, -257])
        #expect(options.pubKeyCredParams[4].algorithm == .es384)
        #expect(options.pubKeyCredParams[5].algorithm == nil)
        #expect(options.timeout == 60000)
        #expect(options.attestation == AttestationConveyancePreference.none)
        #expect(options.authenticatorSelection?.effectiveResidentKey == .required)
        #expect(options.authenticatorSelection?.requireResidentKey == true)
        #expect(options.excludeCredentials == [PublicKeyCredentialDescriptorJSON(id: [1, 2, 3, 4])])
        #expect(options.extensions?.credProps == true)
        #expect(try roundTrip(options) == options)
    }

    /// py_webauthn's `options_to_json`.
    @Test func pyWebAuthnCreationOptions() throws {
        let json = """
        {"rp":{"name":"Example Co","id":"example.com"},
         "user":{"id":"AQIDBAUGBwgJAA","name":"lee","displayName":"Lee"},
         "challenge":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
         "pubKeyCredParams":[{"type":"public-key","alg":-7},{"type":"public-key","alg":-8}],
         "timeout":60000,
         "excludeCredentials":[{"id":"ABEiMw","type":"public-key","transports":["usb","nfc","smart-card","quantum-link"]}],
         "authenticatorSelection":{"residentKey":"preferred","requireResidentKey":false,"userVerification":"preferred"},
         "attestation":"direct","hints":["security-key","client-device"]}
        """
        let options = try decode(PublicKeyCredentialCreationOptionsJSON.self, json)
        #expect(options.user.id.bytes == [1, 2, 3, 4, 5, 6, 7, 8, 9, 0])
        #expect(options.challenge.bytes == Array(0..<32))
        // Unknown transports are kept: the RP hands them back unchanged.
        #expect(options.excludeCredentials.first?.transports == [.usb, .nfc, .smartCard, "quantum-link"])
        #expect(options.authenticatorSelection?.effectiveResidentKey == .preferred)
        #expect(options.attestation == .direct)
        #expect(options.hints == [.securityKey, .clientDevice])
        #expect(options.attestationFormats == [])
        #expect(options.extensions == nil)
        #expect(try roundTrip(options) == options)
    }

    /// SimpleWebAuthn's `generateRegistrationOptions`, with extensions this
    /// library models and one it does not.
    @Test func simpleWebAuthnCreationOptions() throws {
        let json = """
        {"challenge":"c2ltcGxld2ViYXV0aG4tY2hhbGxlbmdl","rp":{"name":"SimpleWebAuthn Example","id":"dev.dontneeda.pw"},
         "user":{"id":"aW50ZXJuYWxVc2VySWQ","name":"user@dev.dontneeda.pw","displayName":""},
         "pubKeyCredParams":[{"alg":-8,"type":"public-key"},{"alg":-7,"type":"public-key"},{"alg":-257,"type":"public-key"}],
         "timeout":60000,"attestation":"none","excludeCredentials":[],
         "authenticatorSelection":{"residentKey":"discouraged","userVerification":"required","authenticatorAttachment":"cross-platform"},
         "extensions":{"credProps":true,"credentialProtectionPolicy":"userVerificationOptionalWithCredentialIDList",
                       "enforceCredentialProtectionPolicy":false,"hmacCreateSecret":true,
                       "prf":{"eval":{"first":"Zmlyc3Q"}},"largeBlob":{"support":"preferred"}},
         "hints":[]}
        """
        let options = try decode(PublicKeyCredentialCreationOptionsJSON.self, json)
        #expect(options.authenticatorSelection?.authenticatorAttachment == .crossPlatform)
        #expect(options.authenticatorSelection?.userVerification == .required)
        #expect(options.extensions?.credentialProtectionPolicy?.ctapValue == 2)
        #expect(options.extensions?.enforceCredentialProtectionPolicy == false)
        #expect(options.extensions?.hmacCreateSecret == true)
        #expect(options.extensions?.prf?.eval?.first.bytes == Array("first".utf8))
        #expect(try roundTrip(options) == options)
    }

    /// Values from a newer specification are ignored, not errors (WebAuthn L3 §2.1.1).
    @Test func unknownEnumerationValuesAreIgnored() throws {
        let json = """
        {"rp":{"name":"x"},"user":{"id":"AA","name":"n","displayName":"d"},"challenge":"AAAA",
         "pubKeyCredParams":[{"type":"future-type","alg":-7}],
         "authenticatorSelection":{"residentKey":"maybe","userVerification":"whenever","authenticatorAttachment":"implant"},
         "attestation":"notarised","hints":["telepathy","hybrid"],
         "extensions":{"credentialProtectionPolicy":"someday"}}
        """
        let options = try decode(PublicKeyCredentialCreationOptionsJSON.self, json)
        #expect(options.rp.id == nil)
        #expect(options.authenticatorSelection?.residentKey == nil)
        #expect(options.authenticatorSelection?.effectiveResidentKey == .discouraged)
        #expect(options.authenticatorSelection?.userVerification == nil)
        #expect(options.authenticatorSelection?.authenticatorAttachment == nil)
        #expect(options.attestation == nil)
        #expect(options.hints == [.hybrid])
        #expect(options.extensions?.credentialProtectionPolicy == nil)
        #expect(options.allowedAlgorithms == [], "only public-key parameters name algorithms")
    }

    @Test func requestOptionsFromFido2NetLib() throws {
        let json = """
        {"status":"ok","errorMessage":"","challenge":"3q2-7w","timeout":60000,"rpId":"localhost",
         "allowCredentials":[{"type":"public-key","id":"AQID"},{"type":"public-key","id":"BAUG","transports":["nfc"]}],
         "userVerification":"required","hints":["security-key"],
         "extensions":{"appid":"https://localhost/app-id.json","hmacGetSecret":{"salt1":"c2FsdA"},
                       "prf":{"evalByCredential":{"AQID":{"first":"AA","second":"AQ"}}}}}
        """
        let options = try decode(PublicKeyCredentialRequestOptionsJSON.self, json)
        #expect(options.challenge.bytes == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(options.rpId == "localhost")
        #expect(options.allowCredentials.map(\.id.bytes) == [[1, 2, 3], [4, 5, 6]])
        #expect(options.userVerification == .required)
        #expect(options.hints == [.securityKey])
        #expect(options.extensions?.appid == "https://localhost/app-id.json")
        #expect(options.extensions?.hmacGetSecret?.salt1.bytes == Array("salt".utf8))
        #expect(options.extensions?.prf?.evalByCredential?["AQID"]?.second?.bytes == [1])
        #expect(try roundTrip(options) == options)
    }

    /// Discoverable sign-in: absent lists decode as empty; encoding writes them.
    @Test func minimalRequestOptions() throws {
        let options = try decode(PublicKeyCredentialRequestOptionsJSON.self, #"{"challenge":"AAECAw"}"#)
        #expect(options.allowCredentials.isEmpty)
        #expect(options.hints.isEmpty)
        #expect(options.userVerification == nil)
        let text = String(decoding: try JSONEncoder().encode(options), as: UTF8.self)
        #expect(text.contains(#""allowCredentials":[]"#))
        #expect(try roundTrip(options) == options)
    }

    /// Binary fields decode strictly: standard base64 is refused, naming the field.
    @Test(arguments: [#""q83v+jRW""#, #""q83v/jRW""#, #""a""#, #""no spaces""#, "12"])
    func strictBase64URL(_ challenge: String) throws {
        let json = #"{"challenge":\#(challenge)}"#
        #expect(throws: DecodingError.self) {
            try decode(PublicKeyCredentialRequestOptionsJSON.self, json)
        }
    }

    @Test func base64URLBytesAcceptsPaddingAndEncodesWithout() throws {
        let value = try decode(Base64URLBytes.self, #""AQID8w==""#)
        #expect(value.bytes == [1, 2, 3, 0xF3])
        #expect(String(decoding: try JSONEncoder().encode(value), as: UTF8.self) == #""AQID8w""#)
    }
}
