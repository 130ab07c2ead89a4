import CFIDO2
import FIDO
import FIDOTestSupport
import Testing
import TestSupport
import VirtualAuthenticator
import WebAuthn

@Suite(.ownThreads) struct ExtensionsThroughLibFIDO2Tests {
    /// hmac-secret: the same salt gives the same secret; with UV it is a different one (CTAP 2.1 §12.5).
    @Test func hmacSecretIsStablePerSaltAndDiffersWithUV() throws {
        let key = try SoftwareKey()
        let request = MakeCredentialRequest(clientDataHash: hash("enrol"), rpId: "vault.local", userId: [1],
                                            hmacSecret: true)
        let created = try key.device.makeCredential(request)
        #expect(LibFIDO2Verify.credential(created, request: request) == FIDO_OK)
        let salt = randomBytes(32), otherSalt = randomBytes(32)
        func secret(_ salts: [[UInt8]], uv: Bool) throws -> [UInt8] {
            let assertion = try key.device.getAssertion(GetAssertionRequest(
                rpId: "vault.local", clientDataHash: hash("unlock"), allowCredentialIds: [created.credentialId],
                userVerification: uv, hmacSalts: salts))
            return try #require(assertion.first?.hmacSecret)
        }
        let first = try secret([salt], uv: false)
        #expect(first.count == 32)
        #expect(try secret([salt], uv: false) == first)
        #expect(try secret([otherSalt], uv: false) != first)
        #expect(try secret([salt], uv: true) != first)
        let two = try secret([salt, otherSalt], uv: false)
        #expect(two.count == 64)
        #expect(Array(two[0..<32]) == first)
    }

    @Test func credProtectThreeIsUnusableWithoutUV() throws {
        let key = try SoftwareKey()
        let request = MakeCredentialRequest(clientDataHash: hash("a"), rpId: "example.org", userId: [1],
                                            residentKey: true, userVerification: true, credProtect: 3)
        let created = try key.device.makeCredential(request)
        #expect(LibFIDO2Verify.credential(created, request: request) == FIDO_OK)
        let authData = try AuthenticatorData(bytes: created.authenticatorData)
        #expect(authData.extensions?["credProtect"] == 3)
        #expect(throws: FIDOError.noCredentials) {
            try key.device.getAssertion(GetAssertionRequest(rpId: "example.org", clientDataHash: hash("x"),
                                                            allowCredentialIds: [created.credentialId]))
        }
        let withUV = try key.device.getAssertion(GetAssertionRequest(rpId: "example.org", clientDataHash: hash("x"),
                                                                     allowCredentialIds: [created.credentialId],
                                                                     userVerification: true))
        #expect(withUV.first?.flags.contains(.userVerified) == true)
    }
}
