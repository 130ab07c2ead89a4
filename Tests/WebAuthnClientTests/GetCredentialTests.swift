import Base64
import FIDO
import FIDOTestSupport
import Testing
import TestSupport
import VirtualAuthenticator
import WebAuthn
import WebAuthnClient

/// `navigator.credentials.get` for a security key, through libfido2 to the
/// software authenticator; each assertion is judged by the WebAuthn
/// relying-party verifier against the credential its registration made.
@Suite(.ownThreads) struct GetCredentialTests {
    static let origin = "https://example.org"

    /// A registered credential, as the relying party keeps it.
    static func register(_ key: SoftwareKey, userId: String = "user-1", name: String = "alice", displayName: String = "Alice",
                         extensions: AuthenticationExtensionsClientInputsJSON? = nil) async throws -> CredentialRecord {
        let options = Options.creation(userId: Array(userId.utf8), name: name, displayName: displayName, extensions: extensions)
        let response = try await CreateCredential(options: options, origin: try WebAuthnOrigin(origin))
            .run(on: key.device, pin: nil, interaction: ScriptedKeyHolder())
        let verified = try RelyingParty.verifyRegistration(response, expecting: RegistrationExpectation(options: options,
                                                                                                       allowedOrigins: [origin]))
        return CredentialRecord(id: verified.credentialId, publicKey: verified.publicKey, signCount: verified.signCount,
                                userHandle: Array(userId.utf8))
    }

    static func get(_ options: PublicKeyCredentialRequestOptionsJSON, on key: SoftwareKey, account: String? = nil,
                    person: ScriptedKeyHolder = ScriptedKeyHolder()) async throws -> AuthenticationResponseJSON {
        try await GetCredential(options: options, origin: try WebAuthnOrigin(origin), account: account)
            .run(on: key.device, pin: nil, interaction: person)
    }

    @Test("an assertion the relying party accepts, by allow list and discoverably; the counter moves on")
    func anAssertionTheRelyingPartyAccepts() async throws {
        let key = try SoftwareKey()
        var record = try await Self.register(key)
        for allow in [[record.id], []] {
            let options = Options.request(allow: allow)
            let response = try await Self.get(options, on: key)
            let verified = try RelyingParty.verifyAuthentication(response, expecting: AuthenticationExpectation(
                options: options, allowedOrigins: [Self.origin], credential: record))
            #expect(verified.credentialId == record.id && verified.signCount > record.signCount)
            #expect(response.response.userHandle?.bytes == Array("user-1".utf8))
            #expect(response.authenticatorAttachment == .crossPlatform)
            let clientData = try ClientData(response.response.clientDataJSON)
            #expect(clientData.type == "webauthn.get" && clientData.origin == Self.origin && clientData.challenge == options.challenge.base64URL)
            record.signCount = verified.signCount
        }
    }

    @Test("what is checked before the key: the origin's right to the RP ID and the challenge's length; no RP ID is the host")
    func refusedBeforeTheKey() throws {
        let origin = try WebAuthnOrigin("https://login.example.org")
        #expect(throws: CeremonyError.originNotAllowed(origin: "https://login.example.org", rpId: "example.com")) {
            try GetCredential(options: Options.request(rpId: "example.com"), origin: origin).checkedRelyingPartyId()
        }
        #expect(throws: CeremonyError.invalidOptions("challenge must be at least 16 bytes")) {
            try GetCredential(options: Options.request(challenge: Options.random(15)), origin: origin).checkedRelyingPartyId()
        }
        #expect(try GetCredential(options: Options.request(rpId: nil), origin: origin).checkedRelyingPartyId() == "login.example.org")
        #expect(try GetCredential(options: Options.request(rpId: "Example.org", challenge: Options.random(16)), origin: origin)
            .checkedRelyingPartyId() == "example.org")
    }

    @Test("a key with no credential for the site: noCredentials")
    func noCredentials() async throws {
        let key = try SoftwareKey()
        _ = try await Self.register(key)
        let elsewhere = await thrownError {
            try await GetCredential(options: Options.request(rpId: "other.example"), origin: try WebAuthnOrigin("https://other.example"))
                .run(on: key.device, pin: nil, interaction: ScriptedKeyHolder())
        }
        #expect(elsewhere as? CeremonyError == .authenticator(.noCredentials))
    }

    @Test("several accounts on the key: the one named by user name, display name or user handle; else the person chooses")
    func choosingAnAccount() async throws {
        let key = try SoftwareKey()
        _ = try await Self.register(key, userId: "id-alice", name: "alice", displayName: "Alice A.")
        _ = try await Self.register(key, userId: "id-bob", name: "bob", displayName: "Bob B.")
        _ = try await Self.register(key, userId: "id-carol", name: "carol", displayName: "Carol C.")
        for (account, userId) in [("bob", "id-bob"), ("Alice A.", "id-alice"), (Base64URL.encode(Array("id-carol".utf8)), "id-carol")] {
            let person = ScriptedKeyHolder()
            let response = try await Self.get(Options.request(), on: key, account: account, person: person)
            #expect(response.response.userHandle?.bytes == Array(userId.utf8), "\(account)")
            #expect(person.accountLists.withLock { $0 }.isEmpty, "named: nobody is asked")
        }
        let person = ScriptedKeyHolder(account: 2)
        let chosen = try await Self.get(Options.request(), on: key, person: person)
        let lists = person.accountLists.withLock { $0 }
        try #require(lists.count == 1)
        #expect(Set(lists[0].compactMap(\.name)) == ["alice", "bob", "carol"])
        #expect(chosen.response.userHandle.map { Base64URL.encode($0.bytes) } == lists[0][2].userHandle, "the third choice signed in")
    }

    @Test("an account the key does not hold is named with those it does; a choice out of range is a cancel")
    func unknownAccountAndBadChoice() async throws {
        let key = try SoftwareKey()
        _ = try await Self.register(key, userId: "id-alice", name: "alice", displayName: "Alice A.")
        _ = try await Self.register(key, userId: "id-bob", name: "bob", displayName: "bob")
        let unknown = await thrownError { try await Self.get(Options.request(), on: key, account: "mallory") }
        guard case .noSuchAccount(let wanted, let available)? = unknown as? CeremonyError else {
            Issue.record("expected noSuchAccount, got \(String(describing: unknown))")
            return
        }
        #expect(wanted == "mallory" && Set(available) == ["Alice A. <alice>", "bob"])
        let outOfRange = await thrownError { try await Self.get(Options.request(), on: key, person: ScriptedKeyHolder(account: 5)) }
        #expect(outOfRange as? CeremonyError == .cancelled)
    }

    @Test("hmac-secret: 32-byte outputs per salt, the same salt the same output, two salts two outputs")
    func hmacSecret() async throws {
        let key = try SoftwareKey()
        let record = try await Self.register(key, extensions: .init(hmacCreateSecret: true))
        let salt1 = Options.random(32), salt2 = Options.random(32)
        func outputs(_ input: HMACGetSecretInputJSON) async throws -> HMACGetSecretOutputJSON? {
            try await Self.get(Options.request(allow: [record.id], extensions: .init(hmacGetSecret: input)), on: key)
                .clientExtensionResults.hmacGetSecret
        }
        let first = try #require(try await outputs(HMACGetSecretInputJSON(salt1: salt1)))
        #expect(first.output1.bytes.count == 32 && first.output2 == nil)
        let again = try #require(try await outputs(HMACGetSecretInputJSON(salt1: salt1, salt2: salt2)))
        #expect(again.output1 == first.output1, "the same salt gives the same secret")
        #expect(again.output2.map { $0.bytes.count } == 32 && again.output2 != again.output1)
        let plain = try await Self.get(Options.request(allow: [record.id]), on: key)
        #expect(plain.clientExtensionResults.hmacGetSecret == nil, "not asked, not given")
    }

    @Test("hmac-secret salts of another length are refused before the key is asked", arguments: [0, 16, 31, 33, 64])
    func badSalts(length: Int) async throws {
        let key = try SoftwareKey()
        let record = try await Self.register(key, extensions: .init(hmacCreateSecret: true))
        let person = ScriptedKeyHolder()
        let error = await thrownError {
            try await Self.get(Options.request(allow: [record.id], extensions: .init(hmacGetSecret: .init(salt1: Options.random(length)))),
                               on: key, person: person)
        }
        #expect(error as? CeremonyError == .invalidOptions("hmacGetSecret salts must be 32 bytes each"))
        #expect(person.stages.withLock { $0 }.isEmpty)
    }

    @Test("a key with a PIN: asked with the RP ID as the reason; the assertion is user-verified")
    func pin() async throws {
        let key = try SoftwareKey.withPIN("4826")
        let options = Options.creation(userVerification: .required)
        let created = try await CreateCredential(options: options, origin: try WebAuthnOrigin(Self.origin))
            .run(on: key.device, pin: "4826", interaction: ScriptedKeyHolder())
        let registered = try RelyingParty.verifyRegistration(created, expecting: RegistrationExpectation(options: options, allowedOrigins: [Self.origin]))
        let person = ScriptedKeyHolder(pins: ["4826"])
        let request = Options.request(allow: [registered.credentialId], userVerification: .required)
        let response = try await Self.get(request, on: key, person: person)
        let verified = try RelyingParty.verifyAuthentication(response, expecting: AuthenticationExpectation(
            options: request, allowedOrigins: [Self.origin],
            credential: CredentialRecord(id: registered.credentialId, publicKey: registered.publicKey, signCount: registered.signCount,
                                         userHandle: Array("user-1".utf8))))
        #expect(verified.userVerified)
        #expect(person.pinRequests.withLock { $0 }.map(\.reason) == ["The security key needs its PIN to sign in to example.org."])
    }
}
