import CFIDO2
import FIDO
import FIDOTestSupport
import Testing
import TestSupport
import VirtualAuthenticator
import WebAuthn

/// makeCredential and getAssertion through libfido2 against the software
/// authenticator; libfido2's own verifiers judge the results.
@Suite(.ownThreads) struct CeremonyThroughLibFIDO2Tests {
    @Test(arguments: [COSEAlgorithm.es256, .edDSA])
    func credentialAndAssertionVerifyInLibFIDO2(algorithm: COSEAlgorithm) throws {
        let key = try SoftwareKey()
        let request = MakeCredentialRequest(clientDataHash: hash("register"), rpId: "example.org", rpName: "Example",
                                            userId: Array("user-1".utf8), userName: "alice", userDisplayName: "Alice",
                                            algorithms: [algorithm], residentKey: true)
        let created = try key.device.makeCredential(request)
        #expect(created.format == "packed")
        #expect(created.algorithm == algorithm)
        #expect(LibFIDO2Verify.credential(created, request: request) == FIDO_OK)

        let authData = try AuthenticatorData(bytes: created.authenticatorData)
        let publicKey = try #require(authData.attestedCredentialData?.publicKey)
        #expect(authData.attestedCredentialData?.credentialId == created.credentialId)
        #expect(authData.attestedCredentialData?.aaguid == VirtualAuthenticatorConfiguration.defaultAAGUID)

        // Discoverable (empty allow list) and with an allow list; the counter keeps rising.
        var counters: [UInt32] = []
        for allow in [[], [created.credentialId]] {
            let cdh = hash("sign in \(allow.count)")
            let assertions = try key.device.getAssertion(GetAssertionRequest(rpId: "example.org", clientDataHash: cdh,
                                                                             allowCredentialIds: allow))
            #expect(assertions.count == 1)
            let assertion = try #require(assertions.first)
            #expect(assertion.credentialId == created.credentialId)
            #expect(LibFIDO2Verify.assertion(assertion, rpId: "example.org", clientDataHash: cdh, key: publicKey) == FIDO_OK)
            #expect(publicKey.isValidSignature(assertion.signature, for: assertion.authenticatorData + cdh))
            if allow.isEmpty { #expect(assertion.userHandle == Array("user-1".utf8)) }
            counters.append(assertion.signCount)
        }
        #expect(counters[1] > counters[0])
        #expect(counters[0] > authData.signCount)
    }

    @Test func discoverableCredentialsComeBackMostRecentFirst() throws {
        let key = try SoftwareKey()
        for name in ["first", "second", "third"] {
            _ = try key.device.makeCredential(MakeCredentialRequest(
                clientDataHash: hash(name), rpId: "example.org", userId: Array(name.utf8), userName: name, residentKey: true))
        }
        // Another site's credential must not show up.
        _ = try key.device.makeCredential(MakeCredentialRequest(
            clientDataHash: hash("other"), rpId: "other.example", userId: [9], userName: "other", residentKey: true))
        let assertions = try key.device.getAssertion(GetAssertionRequest(rpId: "example.org", clientDataHash: hash("x"),
                                                                         userVerification: true))
        #expect(assertions.map(\.userHandle) == [Array("third".utf8), Array("second".utf8), Array("first".utf8)])
        #expect(assertions.map(\.userName) == ["third", "second", "first"])
    }

    @Test func excludeListHitIsAlreadyRegistered() throws {
        let key = try SoftwareKey()
        let first = try key.device.makeCredential(MakeCredentialRequest(
            clientDataHash: hash("a"), rpId: "example.org", userId: [1]))
        #expect(throws: FIDOError.credentialExcluded) {
            try key.device.makeCredential(MakeCredentialRequest(
                clientDataHash: hash("b"), rpId: "example.org", userId: [1], excludeCredentialIds: [first.credentialId]))
        }
        #expect(FIDOError.credentialExcluded.description.contains("already registered"))
    }

    @Test func unknownCredentialIsNoCredentials() throws {
        let key = try SoftwareKey()
        #expect(throws: FIDOError.noCredentials) {
            try key.device.getAssertion(GetAssertionRequest(rpId: "example.org", clientDataHash: hash("x"),
                                                            allowCredentialIds: [randomBytes(48)]))
        }
    }

    @Test func noneAttestationWhenConfigured() throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(attestation: .none))
        let created = try key.device.makeCredential(MakeCredentialRequest(clientDataHash: hash("a"), rpId: "example.org", userId: [1]))
        #expect(created.format == "none")
        #expect(created.attestationStatement == .map([:]))
        let object = try AttestationObject(bytes: created.attestationObject)
        #expect(object.format == "none")
    }
}
