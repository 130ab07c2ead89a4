import Testing
import TestSupport
@testable import WebAuthn

@Suite(.ownThreads) struct AuthenticationVerificationTests {
    let rpId = "example.com"
    let origin = "https://example.com"
    let challenge = randomBytes(16)
    let userHandle = Array("user-1".utf8)
    var authenticator = SoftwareAuthenticator()

    /// The record a relying party would hold after registration.
    var record: CredentialRecord {
        CredentialRecord(id: authenticator.credentialId, publicKey: authenticator.publicKey,
                         signCount: 0, userHandle: userHandle, backupEligible: false)
    }

    func expectation(allowCredentials: [[UInt8]]? = nil, uvRequired: Bool = false,
                     record: CredentialRecord? = nil) -> AuthenticationExpectation {
        AuthenticationExpectation(challenge: challenge, allowedOrigins: [origin], rpId: rpId,
                                  userVerificationRequired: uvRequired,
                                  allowCredentials: allowCredentials ?? [authenticator.credentialId],
                                  credential: record ?? self.record)
    }

    mutating func assert(_ tampering: SoftwareAuthenticator.Tampering = .init(),
                         userHandle: [UInt8]? = nil) -> AuthenticationResponseJSON {
        authenticator.assertion(challenge: challenge, origin: origin, rpId: rpId,
                                userHandle: userHandle ?? self.userHandle, tampering: tampering)
    }

    func expectRefusal(_ check: String, _ response: AuthenticationResponseJSON, _ expectation: AuthenticationExpectation,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: WebAuthnError.self, sourceLocation: sourceLocation) {
            try RelyingParty.verifyAuthentication(response, expecting: expectation)
        }
        guard case .verificationFailed(let why)? = error else { return }
        #expect(why.hasPrefix(check + ":"), "\(why)", sourceLocation: sourceLocation)
    }

    @Test mutating func validAssertion() throws {
        let response = assert()
        let verified = try RelyingParty.verifyAuthentication(response, expecting: expectation())
        #expect(verified.credentialId == authenticator.credentialId)
        #expect(verified.signCount == 1)
        #expect(verified.userHandle == userHandle)
        #expect(verified.userVerified)
    }

    @Test mutating func expectationFromRequestOptions() throws {
        let options = PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URLBytes(challenge), rpId: rpId,
            allowCredentials: [PublicKeyCredentialDescriptorJSON(id: Base64URLBytes(authenticator.credentialId))],
            userVerification: .required)
        let expectation = AuthenticationExpectation(options: options, allowedOrigins: [origin], credential: record)
        #expect(expectation.userVerificationRequired)
        #expect(expectation.allowCredentials == [authenticator.credentialId])
        _ = try RelyingParty.verifyAuthentication(assert(), expecting: expectation)
    }

    @Test mutating func discoverableNeedsUserHandle() throws {
        let discoverable = expectation(allowCredentials: [])
        _ = try RelyingParty.verifyAuthentication(assert(), expecting: discoverable)
        var t = SoftwareAuthenticator.Tampering()
        t.userHandle = .some(nil)
        let anonymous = assert(t)
        expectRefusal("response.userHandle", anonymous, discoverable)
        // With the user identified beforehand, an absent handle is fine.
        _ = try RelyingParty.verifyAuthentication(anonymous, expecting: expectation())
    }

    @Test mutating func userHandleMismatch() {
        expectRefusal("response.userHandle", assert(userHandle: Array("someone-else".utf8)), expectation())
        expectRefusal("response.userHandle", assert(userHandle: []), expectation())
    }

    @Test mutating func notInAllowCredentials() {
        expectRefusal("rawId", assert(), expectation(allowCredentials: [randomBytes(16)]))
    }

    @Test mutating func checkedAgainstAnotherCredential() {
        var other = record
        other.id = randomBytes(32)
        expectRefusal("rawId", assert(), expectation(record: other))
    }

    @Test mutating func wrongType() {
        var t = SoftwareAuthenticator.Tampering()
        t.type = .create
        expectRefusal("clientDataJSON.type", assert(t), expectation())
    }

    @Test mutating func wrongChallenge() {
        var t = SoftwareAuthenticator.Tampering()
        t.challenge = randomBytes(16)
        expectRefusal("clientDataJSON.challenge", assert(t), expectation())
    }

    @Test mutating func wrongOrigin() {
        var t = SoftwareAuthenticator.Tampering()
        t.origin = "https://example.com:8443"
        expectRefusal("clientDataJSON.origin", assert(t), expectation())
    }

    @Test mutating func wrongRpIdHash() {
        var t = SoftwareAuthenticator.Tampering()
        t.rpId = "login.example.com"
        expectRefusal("authenticatorData.rpIdHash", assert(t), expectation())
    }

    @Test mutating func missingUserPresence() {
        var t = SoftwareAuthenticator.Tampering()
        t.flags = [.userVerified]
        expectRefusal("authenticatorData.flags.UP", assert(t), expectation())
    }

    @Test mutating func missingRequiredUserVerification() throws {
        var t = SoftwareAuthenticator.Tampering()
        t.flags = [.userPresent]
        expectRefusal("authenticatorData.flags.UV", assert(t), expectation(uvRequired: true))
        _ = try RelyingParty.verifyAuthentication(assert(t), expecting: expectation())
    }

    @Test mutating func backupEligibilityChanged() {
        var t = SoftwareAuthenticator.Tampering()
        t.flags = [.userPresent, .backupEligible]
        expectRefusal("authenticatorData.flags.BE", assert(t), expectation())
        t.flags = [.userPresent, .backupState]
        expectRefusal("authenticatorData.flags.BS", assert(t), expectation())
    }

    @Test mutating func badSignature() {
        var t = SoftwareAuthenticator.Tampering()
        t.corruptSignature = true
        expectRefusal("response.signature", assert(t), expectation())
        var response = assert()
        response.response.signature = Base64URLBytes([0x30, 0x00])
        expectRefusal("response.signature", response, expectation())
    }

    @Test mutating func signCountRegression() throws {
        var stored = record
        stored.signCount = 5
        var t = SoftwareAuthenticator.Tampering()
        t.signCount = 5
        expectRefusal("authenticatorData.signCount", assert(t), expectation(record: stored))
        t.signCount = 0
        expectRefusal("authenticatorData.signCount", assert(t), expectation(record: stored))
        t.signCount = 6
        #expect(try RelyingParty.verifyAuthentication(assert(t), expecting: expectation(record: stored)).signCount == 6)
    }

    @Test mutating func zeroCountersOnBothSidesAreAccepted() throws {
        var t = SoftwareAuthenticator.Tampering()
        t.signCount = 0
        #expect(try RelyingParty.verifyAuthentication(assert(t), expecting: expectation()).signCount == 0)
    }

    @Test mutating func idMustMatchRawId() {
        var response = assert()
        response.id = "AAAA"
        expectRefusal("id", response, expectation())
        response = assert()
        response.type = "public-key-2"
        expectRefusal("type", response, expectation())
    }

    @Test mutating func malformedAuthenticatorData() {
        var response = assert()
        response.response.authenticatorData = Base64URLBytes([1, 2, 3])
        expectRefusal("response.authenticatorData", response, expectation())
    }
}
