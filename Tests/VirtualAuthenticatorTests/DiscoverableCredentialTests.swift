import CBOR
import Crypto
import Testing
import TestSupport
import VirtualAuthenticator
import WebAuthn

@Suite("Discoverable credentials", .ownThreads)
struct DiscoverableCredentialTests {
    /// Three accounts at example.com, registered alice, bob, carol in that order.
    private func platformWithThreeAccounts() throws -> (TestPlatform, [TestPlatform.Registration]) {
        let platform = try TestPlatform()
        var registrations: [TestPlatform.Registration] = []
        for (index, name) in ["alice", "bob", "carol"].enumerated() {
            registrations.append(try platform.register(TestPlatform.makeCredentialParameters(
                userId: [UInt8(index + 1)], userName: name, displayName: name.capitalized, residentKey: true)))
        }
        _ = try platform.register(TestPlatform.makeCredentialParameters(rpId: "elsewhere.example", userId: [9],
                                                                        residentKey: true))
        return (platform, registrations)
    }

    @Test("empty allowList: most recent first, then getNextAssertion in order")
    func mostRecentFirst() throws {
        let (platform, registrations) = try platformWithThreeAccounts()
        let clientDataHash = Array(SHA256.hash(data: Array("discover".utf8)))
        let first = try platform.authenticate(TestPlatform.getAssertionParameters(clientDataHash: clientDataHash))
        #expect(first.numberOfCredentials == 3)
        var seen = [first]
        for _ in 0..<2 {
            let next = try TestPlatform.parseAssertion(try platform.send(0x08))
            #expect(next.numberOfCredentials == nil)
            seen.append(next)
        }
        #expect(seen.map(\.credentialId) == registrations.reversed().map(\.credentialId))
        #expect(seen.map { $0.user?["id"] } == [[3], [2], [1]].map { CBOR.bytes($0) })
        for (assertion, registration) in zip(seen, registrations.reversed()) {
            #expect(registration.publicKey.isValidSignature(assertion.signature,
                                                            for: assertion.rawAuthenticatorData + clientDataHash))
        }
        // Nothing pending any more.
        #expect(try platform.send(0x08).status == CTAPStatus.notAllowed.rawValue)
    }

    @Test("names are returned only to a verified user choosing among several accounts")
    func userEntityNames() throws {
        let (platform, _) = try platformWithThreeAccounts()
        let withoutUV = try platform.authenticate(TestPlatform.getAssertionParameters())
        #expect(withoutUV.user == ["id": .bytes([3])])
        let withUV = try platform.authenticate(TestPlatform.getAssertionParameters(userVerification: true))
        #expect(withUV.authenticatorData.flags.contains(.userVerified))
        #expect(withUV.user == ["id": .bytes([3]), "name": "carol", "displayName": "Carol"])
        let next = try TestPlatform.parseAssertion(try platform.send(0x08))
        #expect(next.user?["name"] == "bob")
        // A single account: the user id only, even with UV.
        let single = try platform.authenticate(TestPlatform.getAssertionParameters(rpId: "elsewhere.example",
                                                                                   userVerification: true))
        #expect(single.user == ["id": .bytes([9])])
        #expect(single.numberOfCredentials == nil)
    }

    @Test("getNextAssertion without a preceding getAssertion, or after another command, is NOT_ALLOWED")
    func pendingListDies() throws {
        let (platform, _) = try platformWithThreeAccounts()
        #expect(try platform.send(0x08).status == CTAPStatus.notAllowed.rawValue)
        _ = try platform.authenticate(TestPlatform.getAssertionParameters())
        #expect(try platform.send(0x04).isOK)
        #expect(try platform.send(0x08).status == CTAPStatus.notAllowed.rawValue)
    }

    @Test("registering the same user again replaces the credential")
    func sameUserReplaces() throws {
        let platform = try TestPlatform()
        let old = try platform.register(TestPlatform.makeCredentialParameters(residentKey: true))
        let new = try platform.register(TestPlatform.makeCredentialParameters(residentKey: true))
        let assertion = try platform.authenticate(TestPlatform.getAssertionParameters())
        #expect(assertion.credentialId == new.credentialId)
        #expect(assertion.numberOfCredentials == nil)
        #expect(try platform.send(0x02, TestPlatform.getAssertionParameters(allowList: [old.credentialId])).status
                == CTAPStatus.noCredentials.rawValue)
    }

    @Test("a biometric key verifies the fingerprint for a discoverable credential requested without UV")
    func biometricKeyVerifiesForResidentKeys() throws {
        let platform = try TestPlatform()
        let registration = try platform.register(TestPlatform.makeCredentialParameters(residentKey: true))
        #expect(registration.authenticatorData.flags.contains(.userVerified))
        platform.authenticator.verificationPolicy = .deny
        #expect(try platform.send(0x01, TestPlatform.makeCredentialParameters(userId: [7], residentKey: true)).status
                == CTAPStatus.operationDenied.rawValue)
    }

    @Test("PIN set, PIN-only key: non-discoverable without UV is allowed; discoverable needs a token (PUAT_REQUIRED)")
    func makeCredUvNotRequired() throws {
        let platform = try TestPlatform(VirtualAuthenticatorConfiguration(builtInUV: false))
        #expect(try platform.setPIN("4321", version: 2) == 0)
        let plain = try platform.register(TestPlatform.makeCredentialParameters())
        #expect(!plain.authenticatorData.flags.contains(.userVerified))
        #expect(try platform.send(0x01, TestPlatform.makeCredentialParameters(residentKey: true)).status
                == CTAPStatus.pinUvAuthTokenRequired.rawValue)
        // With a token it works, and the UV flag is set.
        let token = try platform.pinToken("4321", version: 2, permissions: 0x01).get()
        let clientDataHash = Array(repeating: UInt8(3), count: 32)
        let registration = try platform.register(TestPlatform.makeCredentialParameters(
            clientDataHash: clientDataHash, residentKey: true,
            pinUvAuthParam: PinSession.authenticate(token: token, message: clientDataHash, version: 2),
            pinUvAuthProtocol: 2))
        #expect(registration.authenticatorData.flags.contains(.userVerified))
    }

    @Test("the key store holds 100 discoverable credentials, then KEY_STORE_FULL")
    func keyStoreFull() throws {
        let platform = try TestPlatform()
        for index in 0..<100 {
            _ = try platform.register(TestPlatform.makeCredentialParameters(
                userId: [UInt8(index), 0xAA], residentKey: true))
        }
        #expect(try platform.send(0x04).body?[0x14]?.uintValue == 0)
        #expect(try platform.send(0x01, TestPlatform.makeCredentialParameters(userId: [0xFF], residentKey: true)).status
                == CTAPStatus.keyStoreFull.rawValue)
    }
}
