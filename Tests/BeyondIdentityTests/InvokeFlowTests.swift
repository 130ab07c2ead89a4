import BeyondIdentity
import FoundationEssentials
import Harness
import Locking
import Testing
import TestSupport
import WebAuthnJSON

/// `InvokeFlow`, the invoke protocol in BeyondIdentity's order, against the
/// loopback identity provider, with a test ceremony at the seam the agent
/// fills (the person's yes, the key): the person is asked before the key is
/// touched, a no sends nothing, the redirects are followed to the login's
/// URL, a binding's realm and RP ID are checked before anyone is asked.
@Suite(.ownThreads) struct InvokeFlowTests {
    static let provePath = "/bi/v1/tenants/t1/realms/r1/transactions/tx-1/prove"
    static let jobs = "/bi/v1/tenants/t1/realms/r1/identities/id-1/credential-binding-jobs/job-1"

    /// Answers as it is told and writes down what it was asked, in order.
    final class TestCeremony: InvokeCeremony {
        let allows: Bool
        let asked = Locked<[String]>([])

        init(allows: Bool = true) { self.allows = allows }

        func allow(_ question: InvokeQuestion) async throws -> Bool {
            switch question {
            case .signIn(let request, let application): asked.withLock { $0.append("allow sign-in \(request.rpId) \(application.name)") }
            case .binding(let options, let application): asked.withLock { $0.append("allow binding \(options.rp.id ?? "") \(application.name)") }
            }
            return allows
        }

        func get(_ options: PublicKeyCredentialRequestOptionsJSON, origin: String) async throws -> AuthenticationResponseJSON {
            asked.withLock { $0.append("get \(origin) \(options.allowCredentials.map(\.id.base64URL))") }
            return AuthenticationResponseJSON(rawId: [1, 2, 3, 4],
                                              response: AuthenticatorAssertionResponseJSON(clientDataJSON: [1], authenticatorData: [2], signature: [3]))
        }

        func create(_ options: PublicKeyCredentialCreationOptionsJSON, origin: String) async throws -> RegistrationResponseJSON {
            asked.withLock { $0.append("create \(origin)") }
            return RegistrationResponseJSON(rawId: [1, 2, 3, 4], response: AuthenticatorAttestationResponseJSON(clientDataJSON: [1], attestationObject: [2]))
        }

        var recorded: [String] { asked.withLock { $0 } }
    }

    @Test("sign-in: asked, then the key (only the credential named), the proof, the redirects to the login's URL")
    func authenticates() async throws {
        let idp = try await TestIdentityProvider()
        let login = "http://127.0.0.1:9/callback"
        idp.script("POST", Self.provePath, .json(#"{"redirect_url":"\#(idp.redirectURI)?code=bi-code&state=okta-state-1"}"#))
        idp.script("GET", "/oauth2/v1/authorize/callback",
                   LoopbackHTTPServer.Answer(status: "302 Found", headers: [("Location", login + "?code=c&state=s")], body: ""))
        let ceremony = TestCeremony()
        let flow = InvokeFlow(trust: try idp.trust(), transport: idp.transport)
        let (request, reached) = try await flow.authenticate(try await idp.requestJWT(idp.claims()), credential: Base64URLBytes([9, 9]),
                                                             ceremony: ceremony) { $0.hasPrefix(login + "?") }
        #expect(reached == login + "?code=c&state=s")
        #expect(request.rpId == "bi.passkey.test")
        #expect(ceremony.recorded == ["allow sign-in bi.passkey.test dev", "get https://bi.passkey.test [\"CQk\"]"])
        #expect(idp.requests(to: Self.provePath).count == 1)
    }

    @Test("the person's no: the key is not touched and nothing is posted")
    func aNoSendsNothing() async throws {
        let idp = try await TestIdentityProvider()
        let ceremony = TestCeremony(allows: false)
        let flow = InvokeFlow(trust: try idp.trust(), transport: idp.transport)
        await #expect(throws: InvokeError.notConfirmed) {
            _ = try await flow.authenticate(try await idp.requestJWT(idp.claims()), ceremony: ceremony) { _ in true }
        }
        #expect(ceremony.recorded == ["allow sign-in bi.passkey.test dev"])
        #expect(idp.allRequests.allSatisfy { $0.method == "GET" })
    }

    @Test("a request that does not verify is refused before the person is asked")
    func anUntrustedRequestIsNotAsked() async throws {
        let idp = try await TestIdentityProvider()
        let ceremony = TestCeremony()
        let flow = InvokeFlow(trust: InvokeTrust(applications: []), transport: idp.transport)
        await #expect(throws: InvokeError.self) {
            _ = try await flow.authenticate(try await idp.requestJWT(idp.claims()), ceremony: ceremony) { _ in true }
        }
        #expect(ceremony.recorded.isEmpty && idp.allRequests.isEmpty)
    }

    @Test("a binding: realm, then RP ID checked, then asked, then made and completed; a foreign RP ID is never asked about")
    func binds() async throws {
        let idp = try await TestIdentityProvider()
        let bind = BindParameters(apiBaseURL: idp.baseURL, tenantId: "t1", realmId: "r1", identityId: "id-1", jobId: "job-1", token: "secret")
        idp.script("POST", Self.jobs + ":begin", .json(#"{"options":{"rp":{"id":"bi.passkey.test","name":"BI"},"user":{"id":"AQI","name":"alice","displayName":"Alice"},"challenge":"AQIDBAUGBwgJCgsMDQ4PEA","pubKeyCredParams":[{"type":"public-key","alg":-7}]},"origin":"https://bi.passkey.test"}"#))
        idp.script("POST", Self.jobs + ":complete", .json(#"{"passkey":{"id":"AQIDBA","identity":{"id":"id-1","username":"alice"}}}"#))
        let ceremony = TestCeremony()
        let flow = InvokeFlow(trust: try idp.trust(), transport: idp.transport)
        let bound = try await flow.bind(bind, ceremony: ceremony)
        #expect(bound.passkeyId == "AQIDBA" && bound.identityId == "id-1")
        #expect(ceremony.recorded == ["allow binding bi.passkey.test dev", "create https://bi.passkey.test"])

        // The application trusts only its own RP ID: github.com is refused before the person is asked.
        let foreign = TestCeremony()
        let strict = InvokeFlow(trust: try idp.trust(rpIds: ["github.com"]), transport: idp.transport)
        await #expect {
            try await strict.bind(bind, ceremony: foreign)
        } throws: { error in
            if case .foreignRelyingParty = error as? InvokeError { return true }
            return false
        }
        #expect(foreign.recorded.isEmpty)
        #expect(idp.requests(to: Self.jobs + ":complete").count == 1, "the refused binding was not completed")
    }

    @Test("a binding link of no trusted application is not fetched: its token goes nowhere")
    func anUntrustedBindingLinkIsNotFetched() async throws {
        let idp = try await TestIdentityProvider()
        let link = idp.baseURL + "/v1/tenants/t9/realms/r1/identities/id-1/credential-binding-jobs/job-1:invokeAuthenticator?token=link-secret"
        let ceremony = TestCeremony()
        await #expect(throws: InvokeError.self) {
            try await InvokeFlow(trust: try idp.trust(), transport: idp.transport).bind(link: link, ceremony: ceremony)
        }
        #expect(idp.allRequests.isEmpty && ceremony.recorded.isEmpty)
    }
}
