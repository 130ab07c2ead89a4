import CBOR
import Testing
import TestSupport
import VirtualAuthenticator

@Suite("credProtect extension", .ownThreads)
struct CredProtectTests {
    @Test("level 3 (userVerificationRequired) is unusable without UV, discoverable or not")
    func levelThree() throws {
        let platform = try TestPlatform()
        let wrapped = try platform.register(TestPlatform.makeCredentialParameters(extensions: ["credProtect": 3]))
        #expect(wrapped.authenticatorData.extensions == ["credProtect": 3])
        let noCredentials = CTAPStatus.noCredentials.rawValue
        #expect(try platform.send(0x02, TestPlatform.getAssertionParameters(allowList: [wrapped.credentialId])).status
                == noCredentials)
        let verified = try platform.authenticate(TestPlatform.getAssertionParameters(
            allowList: [wrapped.credentialId], userVerification: true))
        #expect(verified.authenticatorData.flags.contains(.userVerified))

        let resident = try platform.register(TestPlatform.makeCredentialParameters(
            rpId: "bank.example", residentKey: true, extensions: ["credProtect": 3]))
        #expect(try platform.send(0x02, TestPlatform.getAssertionParameters(rpId: "bank.example")).status == noCredentials)
        #expect(try platform.send(0x02, TestPlatform.getAssertionParameters(
            rpId: "bank.example", allowList: [resident.credentialId])).status == noCredentials)
        #expect(try platform.authenticate(TestPlatform.getAssertionParameters(
            rpId: "bank.example", userVerification: true)).credentialId == resident.credentialId)
        // Without UV it does not even block a new registration via excludeList.
        _ = try platform.register(TestPlatform.makeCredentialParameters(excludeList: [wrapped.credentialId]))
    }

    @Test("level 2: not discoverable without UV, usable when named in the allowList")
    func levelTwo() throws {
        let platform = try TestPlatform()
        let resident = try platform.register(TestPlatform.makeCredentialParameters(
            residentKey: true, extensions: ["credProtect": 2]))
        #expect(try platform.send(0x02, TestPlatform.getAssertionParameters()).status
                == CTAPStatus.noCredentials.rawValue)
        #expect(try platform.authenticate(TestPlatform.getAssertionParameters(allowList: [resident.credentialId]))
                .credentialId == resident.credentialId)
        #expect(try platform.authenticate(TestPlatform.getAssertionParameters(userVerification: true))
                .credentialId == resident.credentialId)
    }

    @Test("an unknown level is an invalid parameter")
    func unknownLevel() throws {
        let platform = try TestPlatform()
        #expect(try platform.send(0x01, TestPlatform.makeCredentialParameters(extensions: ["credProtect": 4])).status
                == CTAPStatus.invalidParameter.rawValue)
    }
}
