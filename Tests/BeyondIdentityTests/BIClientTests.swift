import BeyondIdentity
import FoundationEssentials
import Harness
import Testing
import TestSupport
import WebAuthnJSON

/// `BIClient` against scripted answers of a real loopback server: the
/// proof's redirect and each error code as the case a user knows; binding
/// links resolved without following them; begin and complete.
@Suite(.ownThreads) struct BIClientTests {
    static let provePath = "/bi/v1/tenants/t1/realms/r1/transactions/tx-1/prove"
    static let assertion = AuthenticationResponseJSON(
        rawId: [1, 2, 3, 4], response: AuthenticatorAssertionResponseJSON(clientDataJSON: [1], authenticatorData: [2], signature: [3]))

    private func verified(_ idp: TestIdentityProvider) async throws -> AuthenticateRequest {
        try await idp.verifier().verify(try await idp.requestJWT(idp.claims())).request
    }

    @Test func proveSendsTheAssertionAndReturnsTheRedirect() async throws {
        let idp = try await TestIdentityProvider()
        let request = try await verified(idp)
        let redirect = request.redirectURI + "?code=bi-code&state=okta-state-1"
        idp.script("POST", Self.provePath, .json(#"{"redirect_url":"\#(redirect)"}"#))
        #expect(try await BIClient(transport: idp.transport).prove(request, credential: Self.assertion) == redirect)
        let sent = try #require(idp.requests(to: Self.provePath).first)
        struct Sent: Decodable { var jti: String; var credential: AuthenticationResponseJSON }
        let body = try JSONDecoder().decode(Sent.self, from: Data(sent.body))
        #expect(body.jti == "jti-1")
        #expect(body.credential == Self.assertion)
    }

    @Test(arguments: ["https://evil.example/cb?code=c&state=okta-state-1", "REDIRECT.evil?code=c&state=okta-state-1",
                      "REDIRECT?code=c&state=other", "REDIRECT?code=c", "REDIRECT"])
    func aRedirectElsewhereIsRefused(redirect: String) async throws {
        let idp = try await TestIdentityProvider()
        let request = try await verified(idp)
        idp.script("POST", Self.provePath, .json(#"{"redirect_url":"\#(redirect.replacing("REDIRECT", with: request.redirectURI))"}"#))
        await #expect(throws: InvokeError.redirectMismatch) {
            try await BIClient(transport: idp.transport).prove(request, credential: Self.assertion)
        }
    }

    @Test(arguments: [
        ("credential_not_found", InvokeError.credentialNotFound),
        ("policy_denied", InvokeError.policyDenied("identity suspended")),
        ("transaction_used", InvokeError.transactionUsed),
        ("transaction_expired", InvokeError.transactionExpired),
        ("invalid_signature", InvokeError.server(status: 400, code: "invalid_signature", description: "identity suspended")),
    ])
    func errorCodesMapToTheirCases(code: String, expected: InvokeError) async throws {
        let idp = try await TestIdentityProvider()
        let request = try await verified(idp)
        idp.script("POST", Self.provePath, .json(#"{"error":"\#(code)","error_description":"identity suspended"}"#, status: "400 Bad Request"))
        await #expect(throws: expected) { try await BIClient(transport: idp.transport).prove(request, credential: Self.assertion) }
        #expect(expected.errorCode == code)
    }

    @Test func anAnswerThatIsNotJSONIsAServerError() async throws {
        let idp = try await TestIdentityProvider()
        let request = try await verified(idp)
        idp.script("POST", Self.provePath, LoopbackHTTPServer.Answer(status: "502 Bad Gateway", body: "<html>"))
        await #expect(throws: InvokeError.server(status: 502, code: nil, description: nil)) {
            try await BIClient(transport: idp.transport).prove(request, credential: Self.assertion)
        }
    }

    @Test func anUnreachableProviderIsANetworkErrorWithoutTheNonce() async throws {
        let idp = try await TestIdentityProvider()
        let request = try await verified(idp)
        idp.stop()
        do {
            _ = try await BIClient(transport: idp.transport).prove(request, credential: Self.assertion)
            Issue.record("no error")
        } catch {
            guard case .network = error else { Issue.record("not network: \(error)"); return }
            #expect(!error.description.contains(request.challenge) && !error.description.contains("jti-1"))
        }
    }

    static let linkPath = "/bi/v1/tenants/t1/realms/r1/credential-binding-jobs/job-1:invokeAuthenticator"

    @Test func aBindingLinkIsResolvedWithoutFollowingIt() async throws {
        let idp = try await TestIdentityProvider()
        let bindURL = idp.baseURL.replacing("/bi", with: "/invoke/bind") + "?api_base_url=" + HTTPTransportFormEncode(idp.baseURL)
            + "&tenant_id=t1&realm_id=r1&identity_id=id-1&job_id=job-1&token=secret-token"
        idp.script("GET", Self.linkPath, LoopbackHTTPServer.Answer(status: "302 Found", headers: [("Location", bindURL)], body: ""))
        let bind = try await BIClient(transport: idp.transport).resolveBindingLink(idp.baseURL + "/v1/tenants/t1/realms/r1/credential-binding-jobs/job-1:invokeAuthenticator?token=link-token")
        #expect(bind == BindParameters(apiBaseURL: idp.baseURL, tenantId: "t1", realmId: "r1", identityId: "id-1", jobId: "job-1", token: "secret-token"))
        #expect(idp.requests(to: "/invoke/bind").isEmpty, "the redirect was not followed")
    }

    @Test func aBindingLinkThatDoesNotRedirectToABindURLFails() async throws {
        let idp = try await TestIdentityProvider()
        let link = idp.baseURL + "/v1/tenants/t1/realms/r1/credential-binding-jobs/job-1:invokeAuthenticator?token=link-token"
        idp.script("GET", Self.linkPath, LoopbackHTTPServer.Answer(status: "302 Found", headers: [("Location", "https://evil.example/")], body: ""))
        await #expect {
            try await BIClient(transport: idp.transport).resolveBindingLink(link)
        } throws: { error in
            guard case .bindingFailed(let why) = error as? InvokeError else { return false }
            return !why.contains("link-token")
        }
        await #expect(throws: InvokeError.invalidURL) { try await BIClient(transport: idp.transport).resolveBindingLink("https://bi.example/other?token=t") }
    }

    @Test func bindingBeginsAndCompletes() async throws {
        let idp = try await TestIdentityProvider()
        let bind = BindParameters(apiBaseURL: idp.baseURL, tenantId: "t1", realmId: "r1", identityId: "id-1", jobId: "job-1", token: "secret-token")
        let jobs = "/bi/v1/tenants/t1/realms/r1/identities/id-1/credential-binding-jobs/job-1"
        idp.script("POST", jobs + ":begin", .json(#"{"options":{"rp":{"id":"bi.passkey.test","name":"BI"},"user":{"id":"AQI","name":"alice","displayName":"Alice"},"challenge":"AQIDBAUGBwgJCgsMDQ4PEA","pubKeyCredParams":[{"type":"public-key","alg":-7}],"authenticatorSelection":{"residentKey":"required"}},"origin":"https://bi.passkey.test"}"#))
        idp.script("POST", jobs + ":complete", .json(#"{"passkey":{"id":"AQIDBA","identity":{"id":"id-1","display_name":"Alice","username":"alice"}}}"#))
        let client = BIClient(transport: idp.transport)
        let (options, origin) = try await client.beginBinding(bind)
        #expect(options.rp.id == "bi.passkey.test" && origin == "https://bi.passkey.test")
        let registration = RegistrationResponseJSON(rawId: [1, 2, 3, 4], response: AuthenticatorAttestationResponseJSON(clientDataJSON: [1], attestationObject: [2]))
        let passkey = try await client.completeBinding(bind, credential: registration)
        #expect(passkey == BoundPasskey(passkeyId: "AQIDBA", identityId: "id-1", username: "alice", displayName: "Alice"))
        for path in [jobs + ":begin", jobs + ":complete"] {
            let body = try #require(idp.requests(to: path).first).body
            #expect(String(decoding: body, as: UTF8.self).contains(#""token":"secret-token""#))
        }
    }

    @Test func bindingToAnotherIdentityOrOriginFails() async throws {
        let idp = try await TestIdentityProvider()
        let bind = BindParameters(apiBaseURL: idp.baseURL, tenantId: "t1", realmId: "r1", identityId: "id-1", jobId: "job-1", token: "secret-token")
        let jobs = "/bi/v1/tenants/t1/realms/r1/identities/id-1/credential-binding-jobs/job-1"
        idp.script("POST", jobs + ":begin", .json(#"{"options":{"rp":{"id":"bi.passkey.test","name":"BI"},"user":{"id":"AQI","name":"alice","displayName":"Alice"},"challenge":"AQIDBAUGBwgJCgsMDQ4PEA","pubKeyCredParams":[{"type":"public-key","alg":-7}]},"origin":"https://evil.example"}"#))
        idp.script("POST", jobs + ":complete", .json(#"{"passkey":{"id":"AQIDBA","identity":{"id":"id-2"}}}"#))
        let client = BIClient(transport: idp.transport)
        await #expect { try await client.beginBinding(bind) } throws: { error in
            if case .bindingFailed = error as? InvokeError { return true }
            return false
        }
        let registration = RegistrationResponseJSON(rawId: [1], response: AuthenticatorAttestationResponseJSON(clientDataJSON: [1], attestationObject: [2]))
        await #expect { try await client.completeBinding(bind, credential: registration) } throws: { error in
            if case .bindingFailed = error as? InvokeError { return true }
            return false
        }
        // Ids that would walk the path are refused before anything is sent.
        var walking = bind
        walking.identityId = "../admin"
        await #expect(throws: InvokeError.invalidURL) { try await client.beginBinding(walking) }
    }
}

/// Form encoding for the test's bind URL.
func HTTPTransportFormEncode(_ text: String) -> String {
    text.replacing(":", with: "%3A").replacing("/", with: "%2F")
}
