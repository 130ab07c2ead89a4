import Base64
import CBOR
import Crypto
import Testing
import TestSupport
@testable import WebAuthn

@Suite(.ownThreads) struct RegistrationVerificationTests {
    let rpId = "example.com"
    let origin = "https://example.com"
    let challenge = randomBytes(16)
    /// Its AAGUID is the one the attestation certificates name.
    let authenticator = SoftwareAuthenticator(aaguid: Array(repeating: 0x42, count: 16))

    var expectation: RegistrationExpectation {
        RegistrationExpectation(challenge: challenge, allowedOrigins: [origin], rpId: rpId)
    }

    func register(_ attestation: SoftwareAuthenticator.Attestation = .none,
                  _ tampering: SoftwareAuthenticator.Tampering = .init()) -> RegistrationResponseJSON {
        authenticator.registration(challenge: challenge, origin: origin, rpId: rpId,
                                   attestation: attestation, tampering: tampering)
    }

    /// Expects a verification failure whose message starts with `check`.
    func expectRefusal(_ check: String, _ response: RegistrationResponseJSON,
                       _ expectation: RegistrationExpectation? = nil,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: WebAuthnError.self, sourceLocation: sourceLocation) {
            try RelyingParty.verifyRegistration(response, expecting: expectation ?? self.expectation)
        }
        guard case .verificationFailed(let why)? = error else { return }
        #expect(why.hasPrefix(check + ":"), "\(why)", sourceLocation: sourceLocation)
    }

    @Test func noneAttestation() throws {
        let verified = try RelyingParty.verifyRegistration(register(), expecting: expectation)
        #expect(verified.credentialId == authenticator.credentialId)
        #expect(verified.publicKey == authenticator.publicKey)
        #expect(verified.attestationFormat == "none")
        #expect(verified.attestationType == .none)
        #expect(verified.aaguid == authenticator.aaguid)
        #expect(verified.transports == [.usb])
        #expect(verified.residentKey == true)
        #expect(verified.userVerified)
        #expect(verified.authenticatorAttachment == .crossPlatform)
    }

    @Test func packedSelfAttestation() throws {
        let verified = try RelyingParty.verifyRegistration(register(.packedSelf), expecting: expectation)
        #expect(verified.attestationType == .self)
    }

    @Test func packedCertificateAttestation() throws {
        let (certificate, key) = try AttestationCertificateFactory().make()
        let verified = try RelyingParty.verifyRegistration(register(.packedCertificate(certificate, key)),
                                                           expecting: expectation)
        #expect(verified.attestationType == .basic)
        #expect(verified.attestationCertificates == [certificate])
    }

    @Test func expectationFromCreationOptions() throws {
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: rpId, name: "Example"), user: .init(id: [1], name: "a", displayName: "A"),
            challenge: Base64URLBytes(challenge), pubKeyCredParams: [.init(.es256)],
            authenticatorSelection: .init(userVerification: .required))
        let expectation = RegistrationExpectation(options: options, allowedOrigins: [origin])
        #expect(expectation.userVerificationRequired)
        #expect(expectation.allowedAlgorithms == [-7])
        _ = try RelyingParty.verifyRegistration(register(), expecting: expectation)
        var noUV = SoftwareAuthenticator.Tampering()
        noUV.flags = [.userPresent]
        expectRefusal("authenticatorData.flags.UV", register(.none, noUV), expectation)
    }

    @Test func wrongCeremonyType() {
        var t = SoftwareAuthenticator.Tampering()
        t.type = .get
        expectRefusal("clientDataJSON.type", register(.none, t))
    }

    @Test func wrongChallenge() {
        var t = SoftwareAuthenticator.Tampering()
        t.challenge = randomBytes(16)
        expectRefusal("clientDataJSON.challenge", register(.none, t))
    }

    @Test func originNotAllowed() {
        var t = SoftwareAuthenticator.Tampering()
        t.origin = "https://evil.example"
        expectRefusal("clientDataJSON.origin", register(.none, t))
    }

    @Test func crossOriginIframeNotExpected() {
        var t = SoftwareAuthenticator.Tampering()
        t.crossOrigin = true
        t.topOrigin = "https://embedder.example"
        expectRefusal("clientDataJSON.crossOrigin", register(.none, t))
        var allowing = expectation
        allowing.allowedTopOrigins = ["https://other.example"]
        expectRefusal("clientDataJSON.topOrigin", register(.none, t), allowing)
        allowing.allowedTopOrigins = ["https://embedder.example"]
        #expect(throws: Never.self) { try RelyingParty.verifyRegistration(register(.none, t), expecting: allowing) }
    }

    @Test func wrongRpIdHash() {
        var t = SoftwareAuthenticator.Tampering()
        t.rpId = "evil.example"
        expectRefusal("authenticatorData.rpIdHash", register(.none, t))
    }

    @Test func missingUserPresence() {
        var t = SoftwareAuthenticator.Tampering()
        t.flags = [.userVerified]
        expectRefusal("authenticatorData.flags.UP", register(.none, t))
    }

    @Test func missingRequiredUserVerification() throws {
        var t = SoftwareAuthenticator.Tampering()
        t.flags = [.userPresent]
        var requiring = expectation
        requiring.userVerificationRequired = true
        expectRefusal("authenticatorData.flags.UV", register(.none, t), requiring)
        // Not required: UP alone is enough.
        _ = try RelyingParty.verifyRegistration(register(.none, t), expecting: expectation)
    }

    @Test func backupStateWithoutEligibility() {
        var t = SoftwareAuthenticator.Tampering()
        t.flags = [.userPresent, .backupState]
        expectRefusal("authenticatorData.flags.BS", register(.none, t))
    }

    @Test func algorithmNotOffered() {
        var onlyEdDSA = expectation
        onlyEdDSA.allowedAlgorithms = [COSEAlgorithm.edDSA.rawValue]
        expectRefusal("credentialPublicKey.alg", register(), onlyEdDSA)
    }

    @Test func wrongCredentialType() {
        var response = register()
        response.type = "password"
        expectRefusal("type", response)
    }

    @Test func idDiffersFromRawId() {
        var response = register()
        response.id = Base64URL.encode(randomBytes(32))
        expectRefusal("id", response)
    }

    @Test func rawIdDiffersFromAuthenticatorData() {
        var response = register()
        let other = randomBytes(32)
        response.rawId = Base64URLBytes(other)
        response.id = Base64URL.encode(other)
        expectRefusal("rawId", response)
    }

    @Test func reportedAuthenticatorDataMustMatch() {
        var response = register()
        response.response.authenticatorData = Base64URLBytes([0, 1, 2])
        expectRefusal("response.authenticatorData", response)
    }

    @Test func reportedAlgorithmMustMatch() {
        var response = register()
        response.response.publicKeyAlgorithm = -8
        expectRefusal("response.publicKeyAlgorithm", response)
    }

    @Test func noneWithAStatement() throws {
        var response = register()
        let object = try AttestationObject(bytes: response.response.attestationObject.bytes)
        let forged = CBOR.map(["fmt": "none", "attStmt": ["sig": .bytes([1])], "authData": .bytes(object.rawAuthenticatorData)])
        response.response.attestationObject = Base64URLBytes(forged.encoded())
        expectRefusal("attStmt", response)
    }

    @Test func unsupportedFormat() throws {
        var response = register()
        let object = try AttestationObject(bytes: response.response.attestationObject.bytes)
        let forged = CBOR.map(["fmt": "tpm", "attStmt": .map([:]), "authData": .bytes(object.rawAuthenticatorData)])
        response.response.attestationObject = Base64URLBytes(forged.encoded())
        expectRefusal("attestationObject.fmt", response)
        var noPacked = expectation
        noPacked.allowedAttestationFormats = ["none"]
        expectRefusal("attestationObject.fmt", register(.packedSelf), noPacked)
    }

    @Test func garbageAttestationObject() {
        var response = register()
        response.response.attestationObject = Base64URLBytes([0xA1, 0x01])
        expectRefusal("attestationObject", response)
    }

    @Test func packedSelfWithBadSignature() {
        var t = SoftwareAuthenticator.Tampering()
        t.corruptSignature = true
        expectRefusal("attStmt", register(.packedSelf, t))
    }

    @Test func packedCertificateWithBadSignature() throws {
        let (certificate, key) = try AttestationCertificateFactory().make()
        var t = SoftwareAuthenticator.Tampering()
        t.corruptSignature = true
        expectRefusal("attStmt", register(.packedCertificate(certificate, key), t))
        // Signed by the credential key instead of the certificate's key.
        expectRefusal("attStmt", register(.packedCertificate(certificate, authenticator.key)))
    }

    @Test(arguments: [
        AttestationCertificateFactory(organizationalUnit: "Marketing"),
        AttestationCertificateFactory(country: "Germany"),
        AttestationCertificateFactory(certificateAuthority: true),
        AttestationCertificateFactory(includeBasicConstraints: false),
        AttestationCertificateFactory(aaguid: Array(repeating: 0x07, count: 16)),
        AttestationCertificateFactory(aaguidCritical: true),
    ])
    func certificateRequirements(_ factory: AttestationCertificateFactory) throws {
        let (certificate, key) = try factory.make()
        expectRefusal("attStmt.x5c[0]", register(.packedCertificate(certificate, key)))
    }

    @Test func certificateWithoutAAGUIDExtensionIsAccepted() throws {
        let (certificate, key) = try AttestationCertificateFactory(aaguid: nil).make()
        _ = try RelyingParty.verifyRegistration(register(.packedCertificate(certificate, key)), expecting: expectation)
    }
}
