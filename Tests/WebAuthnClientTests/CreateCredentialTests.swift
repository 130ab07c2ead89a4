import Crypto
import FIDO
import FIDOTestSupport
import Testing
import TestSupport
import VirtualAuthenticator
import WebAuthn
import WebAuthnClient

/// `navigator.credentials.create` for a security key: options JSON and an
/// origin in, RegistrationResponseJSON out, through libfido2 to the software
/// authenticator — every response judged by the WebAuthn relying-party
/// verifier as a site would judge it.
@Suite(.ownThreads) struct CreateCredentialTests {
    static let origin = "https://example.org"

    static func create(_ options: PublicKeyCredentialCreationOptionsJSON, on key: SoftwareKey, origin: String = origin,
                       pin: String? = nil, person: ScriptedKeyHolder = ScriptedKeyHolder()) async throws -> RegistrationResponseJSON {
        try await CreateCredential(options: options, origin: try WebAuthnOrigin(origin)).run(on: key.device, pin: pin, interaction: person)
    }

    @Test("a registration a relying party accepts: its challenge, origin and RP ID, the algorithm asked, credProps, usb, cross-platform")
    func aRegistrationTheRelyingPartyAccepts() async throws {
        let key = try SoftwareKey()
        let person = ScriptedKeyHolder()
        let options = Options.creation(algorithms: [.init(.edDSA), .init(.es256)], extensions: .init(credProps: true))
        let response = try await Self.create(options, on: key, person: person)
        let verified = try RelyingParty.verifyRegistration(response, expecting: RegistrationExpectation(options: options,
                                                                                                       allowedOrigins: [Self.origin]))
        #expect(verified.publicKey.algorithm == .edDSA, "the first algorithm the site lists that the key has")
        #expect(response.response.publicKeyAlgorithm == COSEAlgorithm.edDSA.rawValue)
        #expect(verified.residentKey == true && response.clientExtensionResults.credProps?.rk == true)
        #expect(response.response.transports == [.usb] && response.authenticatorAttachment == .crossPlatform)
        #expect(verified.userVerified, "the key's built-in UV was used for userVerification: preferred")
        let clientData = try ClientData(response.response.clientDataJSON)
        #expect(clientData.type == "webauthn.create" && clientData.origin == Self.origin)
        #expect(clientData.challenge == options.challenge.base64URL)
        #expect(person.stages.withLock { $0 }.contains(.processing))
        #expect(person.pinRequests.withLock { $0 }.isEmpty)
    }

    @Test("no attestation asked (or none): fmt none and a zero AAGUID; direct: the key's own statement and AAGUID",
          arguments: [AttestationConveyancePreference?.none, .some(.none), .some(.direct)])
    func attestationConveyance(preference: AttestationConveyancePreference?) async throws {
        let key = try SoftwareKey()
        let options = Options.creation(attestation: preference)
        let response = try await Self.create(options, on: key)
        let verified = try RelyingParty.verifyRegistration(response, expecting: RegistrationExpectation(options: options,
                                                                                                       allowedOrigins: [Self.origin]))
        let object = try AttestationObject(bytes: response.response.attestationObject.bytes)
        #expect(response.response.authenticatorData?.bytes == object.rawAuthenticatorData,
                "the response's authenticatorData is the one in the attestation object")
        if preference == .direct {
            #expect(verified.attestationFormat == "packed")
            #expect(verified.aaguid == VirtualAuthenticatorConfiguration.defaultAAGUID)
        } else {
            #expect(verified.attestationFormat == "none" && object.statement == .map([:]))
            #expect(verified.aaguid == [UInt8](repeating: 0, count: 16), "the key's model is not told to a site that did not ask")
        }
    }

    @Test("self attestation with a zero AAGUID identifies nothing and is passed on as it is, even when none was asked")
    func anonymousSelfAttestationIsKept() async throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(attestation: .packedSelf, aaguid: [UInt8](repeating: 0, count: 16)))
        let options = Options.creation(attestation: AttestationConveyancePreference.none)
        let response = try await Self.create(options, on: key)
        let verified = try RelyingParty.verifyRegistration(response, expecting: RegistrationExpectation(options: options,
                                                                                                       allowedOrigins: [Self.origin]))
        #expect(verified.attestationFormat == "packed" && verified.attestationType == .`self`)
    }

    @Test("the public key is the DER SubjectPublicKeyInfo of the credential's COSE key (getPublicKey())",
          arguments: [COSEAlgorithm.es256, .edDSA])
    func publicKeyIsTheCredentialKey(algorithm: COSEAlgorithm) async throws {
        let key = try SoftwareKey()
        let options = Options.creation(algorithms: [.init(algorithm)])
        let response = try await Self.create(options, on: key)
        let verified = try RelyingParty.verifyRegistration(response, expecting: RegistrationExpectation(options: options,
                                                                                                       allowedOrigins: [Self.origin]))
        let der = try #require(response.response.publicKey?.bytes)
        switch verified.publicKey {
        case .es256(let x, let y):
            #expect(Array(try P256.Signing.PublicKey(derRepresentation: der).rawRepresentation) == x + y)
        case .ed25519(let x):
            #expect(Array(try Curve25519.Signing.PublicKey(rawRepresentation: Array(der.suffix(32))).rawRepresentation) == x)
            #expect(der.count == 44 && Array(der.prefix(12)) == [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00])
        case .rs256:
            Issue.record("the key made an RSA credential when \(algorithm) was asked")
        }
    }

    @Test("no pubKeyCredParams: the default list, ES256 first (§5.1.3 step 10)")
    func defaultAlgorithms() async throws {
        let key = try SoftwareKey()
        let options = Options.creation(algorithms: [])
        let response = try await Self.create(options, on: key)
        #expect(response.response.publicKeyAlgorithm == COSEAlgorithm.es256.rawValue)
    }

    @Test("residentKey: required and preferred make a discoverable credential on a key that can; discouraged does not",
          arguments: [(ResidentKeyRequirement.required, true), (.preferred, true), (.discouraged, false)])
    func residentKeys(requirement: ResidentKeyRequirement, discoverable: Bool) async throws {
        let key = try SoftwareKey()
        let response = try await Self.create(Options.creation(residentKey: requirement, extensions: .init(credProps: true)), on: key)
        #expect(response.clientExtensionResults.credProps?.rk == discoverable)
        // A discoverable credential answers a request that names none.
        let found = await thrownError {
            try await GetCredential(options: Options.request(), origin: try WebAuthnOrigin(Self.origin))
                .run(on: key.device, pin: nil, interaction: ScriptedKeyHolder())
        }
        #expect((found == nil) == discoverable, "\(String(describing: found))")
    }

    @Test("what is checked before any key is touched: the RP ID's origin, user.id and challenge lengths, a platform authenticator")
    func refusedBeforeTheKey() async throws {
        let origin = try WebAuthnOrigin(Self.origin)
        let cases: [(PublicKeyCredentialCreationOptionsJSON, CeremonyError)] = [
            (Options.creation(rpId: "other.org"), .originNotAllowed(origin: Self.origin, rpId: "other.org")),
            (Options.creation(userId: []), .invalidOptions("user.id must be 1 to 64 bytes (it is 0)")),
            (Options.creation(userId: [UInt8](repeating: 1, count: 65)), .invalidOptions("user.id must be 1 to 64 bytes (it is 65)")),
            (Options.creation(challenge: Options.random(15)), .invalidOptions("challenge must be at least 16 bytes")),
        ]
        for (options, error) in cases {
            #expect(throws: error) { try CreateCredential(options: options, origin: origin).checkedRelyingPartyId() }
        }
        let platform = CreateCredential(options: Options.creation(attachment: .platform), origin: origin)
        #expect {
            try platform.checkedRelyingPartyId()
        } throws: { error in
            guard case .authenticator(.unsupportedOption(let what))? = error as? CeremonyError else { return false }
            return what.contains("platform")
        }
        #expect(try CreateCredential(options: Options.creation(rpId: nil), origin: origin).checkedRelyingPartyId() == "example.org")
        #expect(try CreateCredential(options: Options.creation(userId: [UInt8](repeating: 1, count: 64)), origin: origin)
            .checkedRelyingPartyId() == "example.org")

        // run refuses the same way, and the key is never asked.
        let key = try SoftwareKey()
        let person = ScriptedKeyHolder()
        let refused = await thrownError { try await Self.create(Options.creation(rpId: "other.org"), on: key, person: person) }
        #expect(refused as? CeremonyError == .originNotAllowed(origin: Self.origin, rpId: "other.org"))
        #expect(person.stages.withLock { $0 }.isEmpty)
    }

    @Test("an RP ID that is a parent of the origin's host: the credential is scoped to it, and a sibling origin may use it")
    func parentDomainRPID() async throws {
        let key = try SoftwareKey()
        let options = Options.creation(rpId: "example.org")
        let response = try await Self.create(options, on: key, origin: "https://login.example.org")
        let verified = try RelyingParty.verifyRegistration(response, expecting: RegistrationExpectation(
            options: options, allowedOrigins: ["https://login.example.org"]))
        let assertion = try await GetCredential(options: Options.request(rpId: "example.org", allow: [verified.credentialId]),
                                                origin: try WebAuthnOrigin("https://www.example.org"))
            .run(on: key.device, pin: nil, interaction: ScriptedKeyHolder())
        #expect(assertion.rawId.bytes == verified.credentialId)
    }

    @Test("a credential already on the key (excludeCredentials): credentialExcluded")
    func excludedCredential() async throws {
        let key = try SoftwareKey()
        let first = try await Self.create(Options.creation(), on: key)
        let again = await thrownError { try await Self.create(Options.creation(exclude: [first.rawId.bytes]), on: key) }
        #expect(again as? CeremonyError == .authenticator(.credentialExcluded))
    }

    @Test("hmacCreateSecret: the key's hmac-secret is enabled and reported")
    func hmacCreateSecret() async throws {
        let key = try SoftwareKey()
        let response = try await Self.create(Options.creation(extensions: .init(hmacCreateSecret: true)), on: key)
        #expect(response.clientExtensionResults.hmacCreateSecret == true)
        let without = try await Self.create(Options.creation(userId: [2]), on: key)
        #expect(without.clientExtensionResults.hmacCreateSecret == nil, "not asked, not reported")
    }

    @Test("credProtect userVerificationRequired reaches the key: the credential is not used without user verification")
    func credProtect() async throws {
        let key = try SoftwareKey()
        let options = Options.creation(residentKey: .discouraged,
                                       extensions: .init(credentialProtectionPolicy: .userVerificationRequired,
                                                         enforceCredentialProtectionPolicy: true))
        let response = try await Self.create(options, on: key)
        let origin = try WebAuthnOrigin(Self.origin)
        let hidden = await thrownError {
            try await GetCredential(options: Options.request(allow: [response.rawId.bytes], userVerification: .discouraged), origin: origin)
                .run(on: key.device, pin: nil, interaction: ScriptedKeyHolder())
        }
        #expect(hidden as? CeremonyError == .authenticator(.noCredentials))
        let shown = try await GetCredential(options: Options.request(allow: [response.rawId.bytes], userVerification: .required), origin: origin)
            .run(on: key.device, pin: nil, interaction: ScriptedKeyHolder())
        #expect(shown.rawId == response.rawId)
    }

    @Test("a key with a PIN and no fingerprint: the person is asked, with the RP ID; a wrong PIN is asked again with the tries left")
    func pinIsAskedAndRetried() async throws {
        let key = try SoftwareKey.withPIN("4826")
        let person = ScriptedKeyHolder(pins: ["1111", "4826"])
        let options = Options.creation(userVerification: .required)
        let response = try await Self.create(options, on: key, person: person)
        let verified = try RelyingParty.verifyRegistration(response, expecting: RegistrationExpectation(options: options,
                                                                                                       allowedOrigins: [Self.origin]))
        #expect(verified.userVerified)
        let asked = person.pinRequests.withLock { $0 }
        #expect(asked.count == 2)
        #expect(asked.first?.reason.contains("to register with example.org") == true)
        #expect(asked.first?.triesLeft == nil && asked.last?.triesLeft == 7, "\(asked)")
        #expect(person.stages.withLock { $0 }.contains(.pin))
    }

    @Test("a PIN given up front is used once: a wrong one is the key's answer, and the person is not asked")
    func aGivenPINIsNotRetried() async throws {
        let key = try SoftwareKey.withPIN("4826")
        let person = ScriptedKeyHolder(pins: ["4826"])
        let error = await thrownError { try await Self.create(Options.creation(userVerification: .required), on: key, pin: "0000", person: person) }
        guard case .authenticator(.pinInvalid)? = error as? CeremonyError else {
            Issue.record("expected pinInvalid, got \(String(describing: error))")
            return
        }
        #expect(person.pinRequests.withLock { $0 }.isEmpty)
    }

    @Test("userVerification required on a key with neither PIN nor fingerprint: pinNotSet, before any touch")
    func requiredVerificationWithoutMeans() async throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(builtInUV: false))
        let person = ScriptedKeyHolder()
        let error = await thrownError { try await Self.create(Options.creation(userVerification: .required), on: key, person: person) }
        #expect(error as? CeremonyError == .authenticator(.pinNotSet))
        #expect(person.stages.withLock { $0 }.isEmpty)
    }

    @Test("the key declines the touch: operationDenied")
    func theKeyDeclines() async throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(presence: .deny, verification: .deny, builtInUV: false))
        let error = await thrownError { try await Self.create(Options.creation(residentKey: .discouraged, userVerification: .discouraged), on: key) }
        #expect(error as? CeremonyError == .authenticator(.operationDenied))
    }
}
