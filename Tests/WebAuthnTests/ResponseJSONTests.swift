import FoundationEssentials
import Testing
import TestSupport
import WebAuthn

@Suite(.ownThreads) struct ResponseJSONTests {
    /// A browser's L3 registration response, with every member.
    @Test func browserRegistrationResponse() throws {
        let json = """
        {"id":"AQIDBA","rawId":"AQIDBA","type":"public-key","authenticatorAttachment":"cross-platform",
         "response":{"clientDataJSON":"eyJ9","authenticatorData":"AAEC","transports":["usb","nfc"],
                     "publicKey":"MFkw","publicKeyAlgorithm":-7,"attestationObject":"o2NmbXQ"},
         "clientExtensionResults":{"credProps":{"rk":true},"prf":{"enabled":false}}}
        """
        let response = try JSONDecoder().decode(RegistrationResponseJSON.self, from: Data(json.utf8))
        #expect(response.rawId.bytes == [1, 2, 3, 4])
        #expect(response.response.transports == [.usb, .nfc])
        #expect(response.response.publicKeyAlgorithm == -7)
        #expect(response.authenticatorAttachment == .crossPlatform)
        #expect(response.clientExtensionResults.credProps?.rk == true)
        #expect(response.clientExtensionResults.prf?.enabled == false)
        let again = try JSONDecoder().decode(RegistrationResponseJSON.self, from: JSONEncoder().encode(response))
        #expect(again == response)
    }

    /// The passwordless.dev iOS SDK: no transports, no authenticatorData, and
    /// the obsolete `extensions` instead of `clientExtensionResults`.
    @Test func legacyRegistrationResponse() throws {
        let json = """
        {"id":"AQIDBA","rawId":"AQIDBA","type":"public-key",
         "response":{"clientDataJSON":"eyJ9","attestationObject":"o2NmbXQ"},
         "extensions":{"credProps":{"rk":false}}}
        """
        let response = try JSONDecoder().decode(RegistrationResponseJSON.self, from: Data(json.utf8))
        #expect(response.response.transports == [])
        #expect(response.response.authenticatorData == nil)
        #expect(response.clientExtensionResults.credProps?.rk == false)
        let encoded = String(decoding: try JSONEncoder().encode(response), as: UTF8.self)
        #expect(encoded.contains("clientExtensionResults"))
        #expect(!encoded.contains("\"extensions\""))
    }

    @Test func authenticationResponseWithAndWithoutUserHandle() throws {
        let withHandle = """
        {"id":"AQID","rawId":"AQID","type":"public-key",
         "response":{"clientDataJSON":"eyJ9","authenticatorData":"AAEC","signature":"MEUC","userHandle":"dXNlcg"},
         "clientExtensionResults":{}}
        """
        let a = try JSONDecoder().decode(AuthenticationResponseJSON.self, from: Data(withHandle.utf8))
        #expect(a.response.userHandle?.bytes == Array("user".utf8))
        let without = """
        {"id":"AQID","rawId":"AQID","type":"public-key",
         "response":{"clientDataJSON":"eyJ9","authenticatorData":"AAEC","signature":"MEUC"}}
        """
        let b = try JSONDecoder().decode(AuthenticationResponseJSON.self, from: Data(without.utf8))
        #expect(b.response.userHandle == nil)
        #expect(b.clientExtensionResults == AuthenticationExtensionsClientOutputsJSON())
        #expect(try JSONDecoder().decode(AuthenticationResponseJSON.self, from: JSONEncoder().encode(a)) == a)
    }

    @Test func standardBase64InAResponseIsRefused() {
        let json = """
        {"id":"AQID","rawId":"AQ+D","type":"public-key",
         "response":{"clientDataJSON":"eyJ9","authenticatorData":"AAEC","signature":"MEUC"}}
        """
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(AuthenticationResponseJSON.self, from: Data(json.utf8))
        }
    }
}
