import Foundation
import HTTPTransport
import Locking
import OktaIDX
import OpenID
import Testing
import TestSupport
import Tokens
import WebAuthnJSON

/// The remediation loop OktaIDX owns (`IDXSignIn`), with a test ceremony at
/// the one seam the agent fills (`IDXKeyCeremony`: the software
/// authenticator stands in for the key on the device broker). The server is
/// the recorded answers' scripted Okta, or the real devserver program.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct IDXSignInTests {
    /// The key's side of the sign-in: the software authenticator, the
    /// ceremonies it was asked for, and an optional hook run as the key is
    /// touched (to hold the step, or to cancel the sign-in meanwhile).
    final class TestCeremony: IDXKeyCeremony {
        let key: Locked<SoftwareAuthenticator>
        let calls = Locked<[String]>([])
        let touched: (@Sendable () async throws -> Void)?

        init(key: sending SoftwareAuthenticator = SoftwareAuthenticator(), touched: (@Sendable () async throws -> Void)? = nil) {
            self.key = Locked(key)
            self.touched = touched
        }

        func create(_ options: PublicKeyCredentialCreationOptionsJSON, origin: String) async throws -> RegistrationResponseJSON {
            calls.withLock { $0.append("create \(origin) \(options.rp.id ?? "")") }
            try await touched?()
            return key.withLock { $0.register(options, origin: origin) }
        }

        func get(_ options: PublicKeyCredentialRequestOptionsJSON, origin: String) async throws -> AuthenticationResponseJSON {
            calls.withLock { $0.append("get \(origin) \(options.rpId ?? "")") }
            try await touched?()
            return key.withLock { $0.assert(options, origin: origin) }
        }

        var recorded: [String] { calls.withLock { $0 } }
    }

    /// A ceremony no step of the test may reach.
    struct NoKey: IDXKeyCeremony {
        func create(_ options: PublicKeyCredentialCreationOptionsJSON, origin: String) async throws -> RegistrationResponseJSON {
            Issue.record("the key was asked to make a credential")
            throw CancellationError()
        }

        func get(_ options: PublicKeyCredentialRequestOptionsJSON, origin: String) async throws -> AuthenticationResponseJSON {
            Issue.record("the key was asked for an assertion")
            throw CancellationError()
        }
    }

    static func signIn(_ okta: IDXClientTests.ScriptedOkta, authenticator: String? = nil) throws -> IDXSignIn {
        IDXSignIn(client: try IDXClient(transport: HTTPTransport(), metadata: okta.metadata, clientId: "cli"),
                  scopes: ["openid", "offline_access"], redirectURI: "http://127.0.0.1/callback", authenticator: authenticator)
    }

    // MARK: Recorded answers

    /// identify → select the key → enroll → success, as recorded.
    static func enrollingOkta() throws -> IDXClientTests.ScriptedOkta {
        let okta = try IDXClientTests.ScriptedOkta()
        try okta.queue("/idp/idx/introspect", "01-introspect-identify")
        try okta.queue("/idp/idx/identify", "02-select-enroll")
        try okta.queue("/idp/idx/credential/enroll", "03-enroll-webauthn")
        try okta.queue("/idp/idx/challenge/answer", "09-success")
        return okta
    }

    @Test("identify is asked; the person's answer, then select, enroll on the key at the issuer's origin, success, tokens")
    func enrollsThroughTheLoop() async throws {
        let okta = try Self.enrollingOkta()
        let signIn = try Self.signIn(okta)
        let ceremony = TestCeremony()

        guard case .ask(let identify, let response, let notices) = try await signIn.begin(ceremony) else {
            Issue.record("identify is asked first"); return
        }
        #expect(identify.name == "identify" && identify.prompts.map(\.path).contains("identifier"))
        #expect(response.stateHandle != nil && notices.isEmpty)
        #expect(ceremony.recorded.isEmpty, "no key before the person has answered")

        guard case .signedIn(let tokens, let nonce, _) = try await signIn.proceed("identify", values: ["identifier": "jane@example.test"],
                                                                                  ceremony: ceremony) else {
            Issue.record("the enrollment ends in tokens"); return
        }
        #expect(tokens.accessToken == "fixture-access" && tokens.refreshToken == "fixture-refresh")
        let interact = try #require(okta.requests.first { $0.path == "/oauth2/default/v1/interact" })
        #expect(nonce == interact.form["nonce"], "the nonce to check the ID token with is the one interact sent")
        #expect(ceremony.recorded.count == 1 && ceremony.recorded[0].hasPrefix("create \(okta.origin) "))
        #expect(signIn.username == "jane@example.test")
        #expect(signIn.hasEnded, "a sign-in that landed sends nothing more")
        await #expect(throws: IDXError.signInEnded) { try await signIn.proceed("identify", values: [:], ceremony: NoKey()) }
        let answered = try #require(okta.requests.first { $0.path == "/idp/idx/challenge/answer" })
        let credentials = (try JSONSerialization.jsonObject(with: Data(answered.body)) as? [String: Any])?["credentials"] as? [String: String]
        #expect(credentials?.keys.sorted() == ["attestation", "clientData"])
    }

    @Test("the person's answer refused before it is sent keeps the sign-in; a form not offered too")
    func aWrongAnswerCanBeGivenAgain() async throws {
        let okta = try IDXClientTests.ScriptedOkta()
        try okta.queue("/idp/idx/introspect", "01-introspect-identify")
        try okta.queue("/idp/idx/identify", "05-challenge-password")
        let signIn = try Self.signIn(okta)
        _ = try await signIn.begin(NoKey())
        await #expect {
            try await signIn.proceed("identify", values: [:], ceremony: NoKey())
        } throws: { error in
            if case .missingValue(let field, _) = error as? IDXError { return field == "identifier" }
            return false
        }
        await #expect {
            try await signIn.proceed("identify", values: ["identifier": "jane", "nonsense": "x"], ceremony: NoKey())
        } throws: { error in
            if case .badValue = error as? IDXError { return true }
            return false
        }
        await #expect {
            try await signIn.proceed("challenge-authenticator", values: [:], ceremony: NoKey())
        } throws: { error in
            if case .noSuchRemediation(let name, let offered) = error as? IDXError { return name == "challenge-authenticator" && offered == ["identify", "redirect-idp"] }
            return false
        }
        #expect(!signIn.hasEnded)
        #expect(!okta.requests.contains { $0.path == "/idp/idx/identify" }, "nothing was sent")
        guard case .ask(let password, _, _) = try await signIn.proceed("identify", values: ["identifier": "jane"], ceremony: NoKey()) else {
            Issue.record("the password is asked"); return
        }
        #expect(password.name == "challenge-authenticator" && password.prompts.first?.secret == true)
    }

    @Test("an expired transaction is started again once, with a notice; the second time the sign-in stops")
    func anExpiredSessionRestartsOnce() async throws {
        let okta = try IDXClientTests.ScriptedOkta()
        try okta.queue("/idp/idx/introspect", "07-session-expired")
        try okta.queue("/idp/idx/introspect", "01-introspect-identify")
        let signIn = try Self.signIn(okta)
        guard case .ask(let form, _, let notices) = try await signIn.begin(NoKey()) else { Issue.record("identify"); return }
        #expect(form.name == "identify")
        #expect(notices.map(\.key) == ["idx.session.expired"] && notices.first?.severity == "INFO")
        #expect(okta.requests.filter { $0.path == "/oauth2/default/v1/interact" }.count == 2)

        let again = try IDXClientTests.ScriptedOkta()
        try again.queue("/idp/idx/introspect", "07-session-expired")
        try again.queue("/idp/idx/introspect", "07-session-expired")
        let expiring = try Self.signIn(again)
        await #expect(throws: IDXError.sessionExpired) { try await expiring.begin(NoKey()) }
        #expect(expiring.hasEnded)
    }

    @Test("a loop that never reaches a form or an end is stopped after the automatic-step limit")
    func automaticStepsAreBounded() async throws {
        let okta = try IDXClientTests.ScriptedOkta()
        try okta.queue("/idp/idx/introspect", "02-select-enroll")
        for _ in 0..<(IDXSignIn.maximumAutomaticSteps + 4) { try okta.queue("/idp/idx/credential/enroll", "02-select-enroll") }
        let signIn = try Self.signIn(okta)
        await #expect(throws: IDXError.tooManySteps) { try await signIn.begin(NoKey()) }
        #expect(okta.requests.filter { $0.path == "/idp/idx/credential/enroll" }.count == IDXSignIn.maximumAutomaticSteps)
        #expect(signIn.hasEnded)
    }

    @Test("another authenticator named: the key is not chosen; one not offered stops with what is")
    func aNamedAuthenticator() async throws {
        let okta = try IDXClientTests.ScriptedOkta()
        try okta.queue("/idp/idx/introspect", "02-select-enroll")
        let signIn = try Self.signIn(okta, authenticator: "sms")
        await #expect {
            try await signIn.begin(NoKey())
        } throws: { error in
            if case .badValue(let field, let reason) = error as? IDXError { return field == "--authenticator" && reason.contains("\"sms\"") }
            return false
        }
        #expect(signIn.hasEnded, "a refusal inside the automatic steps ends the sign-in")
    }

    @Test("a call while a step runs is refused, not interleaved; the running step finishes")
    func callsTakeTurns() async throws {
        let okta = try Self.enrollingOkta()
        let (entered, enteredInput) = AsyncStream<Void>.makeStream()
        let (gate, gateInput) = AsyncStream<Void>.makeStream()
        let ceremony = TestCeremony {
            enteredInput.yield()
            for await _ in gate { return }
        }
        let signIn = try Self.signIn(okta)
        _ = try await signIn.begin(ceremony)
        let running = Task { try await signIn.proceed("identify", values: ["identifier": "jane"], ceremony: ceremony) }
        for await _ in entered { break }
        await #expect(throws: IDXError.stepRunning) { try await signIn.proceed("identify", values: ["identifier": "eve"], ceremony: NoKey()) }
        gateInput.yield()
        guard case .signedIn = try await running.value else { Issue.record("the running step lands"); return }
        #expect(signIn.username == "jane")
    }

    @Test("the first turn is the creator's: a call while begin runs is refused")
    func beginHoldsTheFirstTurn() async throws {
        let okta = try IDXClientTests.ScriptedOkta()
        try okta.queue("/idp/idx/introspect", "02-select-enroll")
        try okta.queue("/idp/idx/credential/enroll", "03-enroll-webauthn")
        try okta.queue("/idp/idx/challenge/answer", "09-success")
        let (entered, enteredInput) = AsyncStream<Void>.makeStream()
        let (gate, gateInput) = AsyncStream<Void>.makeStream()
        let signIn = try Self.signIn(okta)
        await #expect(throws: IDXError.stepRunning) { try await signIn.proceed("identify", values: [:], ceremony: NoKey()) }
        let ceremony = TestCeremony {
            enteredInput.yield()
            for await _ in gate { return }
        }
        let running = Task { try await signIn.begin(ceremony) }
        for await _ in entered { break }
        await #expect(throws: IDXError.stepRunning) {
            try await signIn.proceed("select-authenticator-enroll", values: [:], ceremony: NoKey())
        }
        gateInput.yield()
        guard case .signedIn = try await running.value else { Issue.record("begin lands"); return }
        #expect(okta.requests.filter { $0.path == "/idp/idx/credential/enroll" }.count == 1, "nothing was sent for the refused call")
    }

    @Test("a sign-in cancelled while the key is touched fetches no tokens")
    func aCancelledSignInFetchesNoTokens() async throws {
        let okta = try Self.enrollingOkta()
        let box = Locked<IDXSignIn?>(nil)
        let ceremony = TestCeremony { box.withLock { $0 }?.abandon() }
        let signIn = try Self.signIn(okta)
        box.withLock { $0 = signIn }
        _ = try await signIn.begin(ceremony)
        await #expect(throws: IDXError.signInEnded) { try await signIn.proceed("identify", values: ["identifier": "jane"], ceremony: ceremony) }
        #expect(!okta.requests.contains { $0.path == "/oauth2/default/v1/token" }, "the interaction code was not exchanged")
    }

    @Test("cancel ends the sign-in at the server too; the key's own refusal ends it as it is")
    func cancelAndARefusingKey() async throws {
        let okta = try IDXClientTests.ScriptedOkta()
        try okta.queue("/idp/idx/introspect", "01-introspect-identify")
        try okta.queue("/idp/idx/cancel", "01-introspect-identify")
        let signIn = try Self.signIn(okta)
        _ = try await signIn.begin(NoKey())
        await signIn.cancel()
        #expect(signIn.hasEnded)
        #expect(okta.requests.contains { $0.path == "/idp/idx/cancel" })
        await #expect(throws: IDXError.signInEnded) { try await signIn.proceed("identify", values: ["identifier": "jane"], ceremony: NoKey()) }

        struct Refused: Error, Equatable {}
        let refusing = try IDXClientTests.ScriptedOkta()
        try refusing.queue("/idp/idx/introspect", "02-select-enroll")
        try refusing.queue("/idp/idx/credential/enroll", "03-enroll-webauthn")
        let declined = try Self.signIn(refusing)
        await #expect(throws: Refused()) { try await declined.begin(TestCeremony { throw Refused() }) }
        #expect(declined.hasEnded)
        #expect(!refusing.requests.contains { $0.path == "/idp/idx/challenge/answer" }, "no answer without the key's")
    }

    // MARK: The devserver

    @Test("against the devserver: enroll, then sign in with the enrolled key; an unenrolled key's assertion stops the loop")
    func devServerEnrollThenChallenge() async throws {
        let server = try IDXDevServerTests.Server()
        let key = SoftwareAuthenticator()
        func signIn() async throws -> IDXSignIn {
            IDXSignIn(client: try await server.client(), scopes: ["openid", "offline_access"], redirectURI: "http://127.0.0.1/callback")
        }
        let enrolling = TestCeremony(key: key)
        let first = try await signIn()
        guard case .ask(let identify, _, _) = try await first.begin(enrolling), identify.name == "identify" else {
            Issue.record("identify is asked"); return
        }
        guard case .signedIn(let tokens, _, _) = try await first.proceed("identify", values: ["identifier": "carol"], ceremony: enrolling)
        else { Issue.record("the enrollment lands"); return }
        #expect(tokens.idToken != nil && tokens.refreshToken != nil)
        #expect(enrolling.recorded.count == 1 && enrolling.recorded[0].hasPrefix("create \(server.origin) "))

        let enrolled = TestCeremony(key: enrolling.key.withLock { $0 })
        let second = try await signIn()
        _ = try await second.begin(enrolled)
        guard case .signedIn = try await second.proceed("identify", values: ["identifier": "carol"], ceremony: enrolled) else {
            Issue.record("the enrolled key signs in"); return
        }
        #expect(enrolled.recorded.count == 1 && enrolled.recorded[0].hasPrefix("get \(server.origin) "))

        var strangerKey = SoftwareAuthenticator()
        strangerKey.credentialId = enrolling.key.withLock { $0.credentialId }.map { $0 ^ 0xff }
        let stranger = TestCeremony(key: strangerKey)
        let third = try await signIn()
        _ = try await third.begin(stranger)
        await #expect {
            try await third.proceed("identify", values: ["identifier": "carol"], ceremony: stranger)
        } throws: { error in
            "\(error)".contains("not made by a security key enrolled for carol")
        }
        #expect(third.hasEnded)
    }
}
