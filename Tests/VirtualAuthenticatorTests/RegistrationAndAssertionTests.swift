import CBOR
import Crypto
import Testing
import TestSupport
import VirtualAuthenticator
import WebAuthn

@Suite("makeCredential and getAssertion", .ownThreads)
struct RegistrationAndAssertionTests {
    @Test("round trip: the assertion signature verifies over authData ‖ clientDataHash", arguments: [-7, -8])
    func roundTrip(algorithm: Int) throws {
        let platform = try TestPlatform()
        let registration = try platform.register(TestPlatform.makeCredentialParameters(algorithms: [algorithm]))
        #expect(registration.publicKey.algorithm.rawValue == algorithm)
        let flags = registration.authenticatorData.flags
        #expect(flags.contains(.userPresent))
        #expect(flags.contains(.attestedCredentialData))
        #expect(!flags.contains(.userVerified))
        #expect(registration.authenticatorData.rpIdHash == Array(SHA256.hash(data: Array("example.com".utf8))))
        #expect(registration.authenticatorData.extensions == nil)

        let clientDataHash = Array(SHA256.hash(data: Array("challenge".utf8)))
        let assertion = try platform.authenticate(TestPlatform.getAssertionParameters(
            clientDataHash: clientDataHash, allowList: [registration.credentialId]))
        #expect(assertion.credentialId == registration.credentialId)
        #expect(assertion.authenticatorData.flags == [.userPresent])
        #expect(assertion.user == nil)
        #expect(registration.publicKey.isValidSignature(assertion.signature,
                                                        for: assertion.rawAuthenticatorData + clientDataHash))
        #expect(!registration.publicKey.isValidSignature(assertion.signature,
                                                         for: assertion.rawAuthenticatorData + [UInt8](repeating: 0, count: 32)))
        #expect(assertion.authenticatorData.signCount > registration.authenticatorData.signCount)
    }

    @Test("the first supported algorithm of the platform's list is chosen")
    func algorithmChoice() throws {
        let platform = try TestPlatform()
        let registration = try platform.register(TestPlatform.makeCredentialParameters(algorithms: [-257, -8, -7]))
        #expect(registration.publicKey.algorithm == .edDSA)
        #expect(try platform.send(0x01, TestPlatform.makeCredentialParameters(algorithms: [-257, -35])).status
                == CTAPStatus.unsupportedAlgorithm.rawValue)
    }

    @Test("packed self attestation: alg of the credential, signature by the credential key, no x5c", arguments: [-7, -8])
    func packedSelfAttestation(algorithm: Int) throws {
        let platform = try TestPlatform()
        let registration = try platform.register(TestPlatform.makeCredentialParameters(algorithms: [algorithm]))
        #expect(registration.format == "packed")
        #expect(registration.statement["alg"]?.intValue == Int64(algorithm))
        #expect(registration.statement["x5c"] == nil)
        let signature = try #require(registration.statement["sig"]?.bytesValue)
        #expect(registration.publicKey.isValidSignature(
            signature, for: registration.rawAuthenticatorData + registration.clientDataHash))
    }

    @Test("none attestation: fmt none and an empty statement")
    func noneAttestation() throws {
        let platform = try TestPlatform(VirtualAuthenticatorConfiguration(attestation: .none))
        let registration = try platform.register(TestPlatform.makeCredentialParameters())
        #expect(registration.format == "none")
        #expect(registration.statement == .map([:]))
    }

    @Test("excludeList hit: CREDENTIAL_EXCLUDED, only after a touch")
    func excludeList() throws {
        let platform = try TestPlatform()
        let registration = try platform.register(TestPlatform.makeCredentialParameters())
        let again = TestPlatform.makeCredentialParameters(excludeList: [[9, 9, 9], registration.credentialId])
        #expect(try platform.send(0x01, again).status == CTAPStatus.credentialExcluded.rawValue)
        // The touch comes first: a user who refuses it sees OPERATION_DENIED, not the exclusion.
        platform.authenticator.presencePolicy = .deny
        #expect(try platform.send(0x01, again).status == CTAPStatus.operationDenied.rawValue)
        // An excludeList entry for another RP does not match.
        platform.authenticator.presencePolicy = .approve
        _ = try platform.register(TestPlatform.makeCredentialParameters(
            rpId: "other.example", excludeList: [registration.credentialId]))
    }

    @Test("up=false is an invalid option for makeCredential")
    func makeCredentialNeedsPresence() throws {
        let platform = try TestPlatform()
        #expect(try platform.send(0x01, TestPlatform.makeCredentialParameters(userPresence: false)).status
                == CTAPStatus.invalidOption.rawValue)
    }

    @Test("up=false gives a silent assertion with the UP flag clear")
    func silentAssertion() throws {
        let platform = try TestPlatform(VirtualAuthenticatorConfiguration(presence: .deny))
        platform.authenticator.presencePolicy = .approve
        let registration = try platform.register(TestPlatform.makeCredentialParameters())
        platform.authenticator.presencePolicy = .deny
        let clientDataHash = Array(repeating: UInt8(7), count: 32)
        let assertion = try platform.authenticate(TestPlatform.getAssertionParameters(
            clientDataHash: clientDataHash, allowList: [registration.credentialId], userPresence: false))
        #expect(assertion.authenticatorData.flags.isEmpty)
        #expect(registration.publicKey.isValidSignature(assertion.signature,
                                                        for: assertion.rawAuthenticatorData + clientDataHash))
    }

    @Test("a credential id for another RP, or altered in one bit, is not found")
    func foreignAndTamperedIDs() throws {
        let platform = try TestPlatform()
        let registration = try platform.register(TestPlatform.makeCredentialParameters())
        let otherRP = TestPlatform.getAssertionParameters(rpId: "evil.example", allowList: [registration.credentialId])
        #expect(try platform.send(0x02, otherRP).status == CTAPStatus.noCredentials.rawValue)
        for index in [0, 5, 20, registration.credentialId.count - 1] {
            var tampered = registration.credentialId
            tampered[index] ^= 0x01
            let request = TestPlatform.getAssertionParameters(allowList: [tampered])
            #expect(try platform.send(0x02, request).status == CTAPStatus.noCredentials.rawValue)
        }
        #expect(try platform.send(0x02, TestPlatform.getAssertionParameters(allowList: [[1, 2, 3]])).status
                == CTAPStatus.noCredentials.rawValue)
    }

    @Test("no discoverable credential for the RP: NO_CREDENTIALS")
    func noCredentials() throws {
        let platform = try TestPlatform()
        #expect(try platform.send(0x02, TestPlatform.getAssertionParameters()).status
                == CTAPStatus.noCredentials.rawValue)
    }

    @Test("the global signature counter increases with every signature")
    func counterIncreases() throws {
        let platform = try TestPlatform()
        let registration = try platform.register(TestPlatform.makeCredentialParameters())
        var last = registration.authenticatorData.signCount
        for _ in 0..<5 {
            let assertion = try platform.authenticate(TestPlatform.getAssertionParameters(allowList: [registration.credentialId]))
            #expect(assertion.authenticatorData.signCount > last)
            last = assertion.authenticatorData.signCount
        }
    }
}
