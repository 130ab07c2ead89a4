import CBOR
import Crypto
import Testing
import TestSupport
import VirtualAuthenticator

@Suite("hmac-secret extension", .ownThreads)
struct HmacSecretTests {
    /// Runs getAssertion with hmac-secret for `salts` and returns the decrypted output.
    private func secret(_ platform: TestPlatform, credential: [UInt8], salts: [UInt8], version: UInt8,
                        userVerification: Bool? = nil, omitProtocolKey: Bool = false) throws -> [UInt8] {
        let session = try platform.pinSession(version)
        let saltEnc = try session.encrypt(salts)
        var input: [CBOR: CBOR] = [1: session.platformCOSEKey, 2: .bytes(saltEnc), 3: .bytes(session.authenticate(saltEnc))]
        if !omitProtocolKey { input[4] = .unsigned(UInt64(version)) }
        let assertion = try platform.authenticate(TestPlatform.getAssertionParameters(
            allowList: [credential], extensions: ["hmac-secret": .map(input)], userVerification: userVerification))
        #expect(assertion.authenticatorData.flags.contains(.extensionData))
        let extensions = try #require(assertion.authenticatorData.extensions)
        #expect(extensions.mapValue?.count == 1)
        let encrypted = try #require(extensions["hmac-secret"]?.bytesValue)
        return try session.decrypt(encrypted)
    }

    @Test("makeCredential reports exactly the requested extension outputs")
    func registrationOutputs() throws {
        let platform = try TestPlatform()
        let both = try platform.register(TestPlatform.makeCredentialParameters(
            extensions: ["hmac-secret": true, "credProtect": 2]))
        #expect(both.authenticatorData.extensions == ["hmac-secret": true, "credProtect": 2])
        let one = try platform.register(TestPlatform.makeCredentialParameters(extensions: ["hmac-secret": true]))
        #expect(one.authenticatorData.extensions == ["hmac-secret": true])
        let unknownOnly = try platform.register(TestPlatform.makeCredentialParameters(extensions: ["largeBlobKey": true]))
        #expect(unknownOnly.authenticatorData.extensions == nil)
        #expect(!unknownOnly.authenticatorData.flags.contains(.extensionData))
    }

    @Test("outputs are stable per salt, differ between salts and with UV", arguments: [UInt8(1), 2])
    func stableAndUVDependent(version: UInt8) throws {
        let platform = try TestPlatform()
        let registration = try platform.register(TestPlatform.makeCredentialParameters(extensions: ["hmac-secret": true]))
        let saltA = [UInt8](repeating: 0xA5, count: 32)
        let saltB = [UInt8](repeating: 0x5A, count: 32)
        let id = registration.credentialId

        let first = try secret(platform, credential: id, salts: saltA, version: version, omitProtocolKey: version == 1)
        let again = try secret(platform, credential: id, salts: saltA, version: version)
        #expect(first.count == 32)
        #expect(first == again)
        let other = try secret(platform, credential: id, salts: saltB, version: version)
        #expect(other != first)
        let verified = try secret(platform, credential: id, salts: saltA, version: version, userVerification: true)
        #expect(verified != first)
        #expect(verified == (try secret(platform, credential: id, salts: saltA, version: version, userVerification: true)))

        let pair = try secret(platform, credential: id, salts: saltA + saltB, version: version)
        #expect(pair.count == 64)
        #expect(Array(pair[0..<32]) == first)
        #expect(Array(pair[32..<64]) == other)
    }

    @Test("the same secret across protocols and for discoverable credentials")
    func acrossProtocolsAndDiscoverable() throws {
        let platform = try TestPlatform()
        let registration = try platform.register(TestPlatform.makeCredentialParameters(
            residentKey: true, extensions: ["hmac-secret": true]))
        let salt = [UInt8](repeating: 0x11, count: 32)
        let viaOne = try secret(platform, credential: registration.credentialId, salts: salt, version: 1)
        let viaTwo = try secret(platform, credential: registration.credentialId, salts: salt, version: 2)
        #expect(viaOne == viaTwo)
    }

    @Test("a bad saltAuth is PIN_AUTH_INVALID; a credential without hmac-secret gives no output")
    func failures() throws {
        let platform = try TestPlatform()
        let withSecret = try platform.register(TestPlatform.makeCredentialParameters(extensions: ["hmac-secret": true]))
        let session = try platform.pinSession(2)
        let saltEnc = try session.encrypt([UInt8](repeating: 1, count: 32))
        let badAuth: CBOR = ["hmac-secret": [1: session.platformCOSEKey, 2: .bytes(saltEnc),
                                             3: .bytes([UInt8](repeating: 0, count: 32)), 4: 2]]
        let request = TestPlatform.getAssertionParameters(allowList: [withSecret.credentialId],
                                                          extensions: badAuth.mapValue)
        #expect(try platform.send(0x02, request).status == CTAPStatus.pinAuthInvalid.rawValue)

        let plain = try platform.register(TestPlatform.makeCredentialParameters())
        let good: CBOR = ["hmac-secret": [1: session.platformCOSEKey, 2: .bytes(saltEnc),
                                          3: .bytes(session.authenticate(saltEnc)), 4: 2]]
        let assertion = try platform.authenticate(TestPlatform.getAssertionParameters(
            allowList: [plain.credentialId], extensions: good.mapValue))
        #expect(assertion.authenticatorData.extensions == nil)
        #expect(!assertion.authenticatorData.flags.contains(.extensionData))
        // A silent assertion does not release the secret.
        let silent = TestPlatform.getAssertionParameters(allowList: [withSecret.credentialId],
                                                         extensions: good.mapValue, userPresence: false)
        #expect(try platform.send(0x02, silent).status == CTAPStatus.unsupportedOption.rawValue)
    }
}
