import BeyondIdentity
import FoundationEssentials
import Harness
import HTTPTransport
import Locking
import Testing
import TestSupport

/// Issue 23's first attack and its neighbours: a request signed by a key set
/// on a trusted host that names another site's RP ID, another tenant's path
/// on the same host, a proof or redirect sent elsewhere, a redirect chain to
/// a loopback URL outside the login. Each is refused before the key or the
/// network is used for it.
@Suite(.ownThreads) struct InvokeTrustTests {
    @Test("a trusted application's key set naming github.com as RP ID: refused, nothing signed or posted")
    func aForeignRelyingPartyIsRefused() async throws {
        let idp = try await TestIdentityProvider()
        var claims = idp.claims()
        claims.authn.action.prove.rp_id = "github.com"
        claims.authn.action.prove.origin = "https://github.com"
        let token = try await idp.requestJWT(claims)
        let application = try idp.trust().applications[0].shown
        await #expect(throws: InvokeError.foreignRelyingParty(rpId: "github.com", application: application)) {
            try await idp.verifier().verify(token)
        }
        #expect(idp.allRequests.allSatisfy { $0.method == "GET" }, "nothing is posted to the requester")
    }

    @Test("a whole trusted host (the older trusted-hosts) trusts only the host's own RP IDs")
    func aTrustedHostAloneDoesNotTrustAnyRelyingParty() async throws {
        let idp = try await TestIdentityProvider()
        let token = try await idp.requestJWT(idp.claims())  // rp_id bi.passkey.test, served from 127.0.0.1
        await #expect {
            try await idp.verifier(trusting: [idp.host]).verify(token)
        } throws: { error in
            if case .foreignRelyingParty(let rp, _) = error as? InvokeError { return rp == "bi.passkey.test" }
            return false
        }
    }

    @Test("an origin the RP ID may not use is refused even for the application's own RP ID")
    func anOriginOutsideTheRelyingPartyIsRefused() async throws {
        let idp = try await TestIdentityProvider()
        var claims = idp.claims()
        claims.authn.action.prove.origin = "https://evil.example"
        await #expect(throws: InvokeError.self) { try await idp.verifier().verify(try await idp.requestJWT(claims)) }
    }

    @Test("another tenant's key set on the same host is not the trusted application's: nothing is fetched")
    func anotherTenantOnTheSameHostIsRefused() async throws {
        let idp = try await TestIdentityProvider()
        for path in ["/bi/v1/tenants/t2/realms/r1/applications/a1", "/bi/v1/tenants/t1/realms/r1/applications/a10",
                     "/bi/v1/tenants/t1/realms/r1/applications/a1/../../../../t2/realms/r1/applications/a1",
                     "/bi/v1/tenants/t1/realms/r1/applications/a1/%2e%2e/a2"] {
            let token = try await idp.requestJWT(idp.claims(), jku: idp.baseURL.replacing("/bi", with: "") + path + "/.well-known/jwks.json")
            await #expect(throws: InvokeError.self, "\(path)") { try await idp.verifier().verify(token) }
        }
        #expect(idp.allRequests.isEmpty)
    }

    @Test("the proof target and the redirect URI must be on the application's hosts")
    func aProofOrRedirectElsewhereIsRefused() async throws {
        let idp = try await TestIdentityProvider()
        var proof = idp.claims()
        proof.authn.base_url = "https://collector.example"
        await #expect {
            try await idp.verifier().verify(try await idp.requestJWT(proof))
        } throws: { error in
            if case .foreignHost(let what, _, _) = error as? InvokeError { return what.contains("base_url") }
            return false
        }
        var redirect = idp.claims()
        redirect.authn.redirect_uri = "http://127.0.0.2:9/admin"
        await #expect {
            try await idp.verifier().verify(try await idp.requestJWT(redirect))
        } throws: { error in
            if case .foreignHost(let what, _, _) = error as? InvokeError { return what.contains("redirect_uri") }
            return false
        }
        // Named in the application's hosts, the Okta tenant's callback is fine.
        var okta = idp.claims()
        okta.authn.redirect_uri = "https://acme.okta.example/oauth2/v1/authorize/callback"
        let verifier = RequestVerifier(trust: try idp.trust(hosts: ["acme.okta.example"]), transport: idp.transport)
        #expect(try await verifier.verify(try await idp.requestJWT(okta)).request.redirectURI == okta.authn.redirect_uri)
    }

    @Test("a binding's realm must be a trusted application's; a link's realm is read from its path")
    func bindingsBelongToTheApplicationsRealm() throws {
        let trust = InvokeTrust(applications: [
            try TrustedApplication(name: "acme", issuer: "https://auth.example.com/v1/tenants/t1/realms/r1/applications/a1"),
        ])
        #expect(try trust.application(forRealm: "https://auth.example.com", tenantId: "t1", realmId: "r1").name == "acme")
        #expect(throws: InvokeError.self) { try trust.application(forRealm: "https://auth.example.com", tenantId: "t2", realmId: "r1") }
        #expect(throws: InvokeError.self) { try trust.application(forRealm: "https://auth.example.com", tenantId: "t1", realmId: "r") }
        #expect(throws: InvokeError.self) { try trust.application(forRealm: "https://auth.example.com.evil", tenantId: "t1", realmId: "r1") }
        let link = "https://auth.example.com/v1/tenants/t1/realms/r1/identities/i1/credential-binding-jobs/j1:invokeAuthenticator?token=x"
        #expect(try trust.application(forBindingLink: link).name == "acme")
        #expect(throws: InvokeError.self) {
            try trust.application(forBindingLink: link.replacing("tenants/t1", with: "tenants/t9"))
        }
    }

    @Test("RP IDs default to the issuer host and its parents down to its registrable domain; a public suffix is never one")
    func relyingPartiesFollowThePublicSuffixList() throws {
        let bi = try TrustedApplication(name: "bi", issuer: "https://auth-us.beyondidentity.com/v1/tenants/t/realms/r/applications/a")
        #expect(bi.relyingParties == ["auth-us.beyondidentity.com", "beyondidentity.com"])
        let uk = try TrustedApplication(name: "uk", issuer: "https://login.example.co.uk/app")
        #expect(uk.relyingParties == ["login.example.co.uk", "example.co.uk"])
        let pages = try TrustedApplication(name: "pages", issuer: "https://tenant.github.io/app")
        #expect(pages.relyingParties == ["tenant.github.io"], "github.io is a public suffix: a sibling tenant is not ours")
        #expect(try TrustedApplication.wholeHost("127.0.0.1:8080").relyingParties == ["127.0.0.1"])
        #expect(throws: InvokeTrustError.self) { try TrustedApplication(name: "x", issuer: "https://a.example.co.uk/", relyingParties: ["co.uk"]) }
        #expect(throws: InvokeTrustError.self) { try TrustedApplication(name: "x", issuer: "http://auth.example.com/app") }
    }

    @Test("after a proof, a redirect chain to a loopback URL outside the login is not fetched")
    func aRedirectChainOutsideTheApplicationIsNotFollowed() async throws {
        let victim = Locked<[String]>([])
        let admin = try LoopbackHTTPServer { request in
            victim.withLock { $0.append(request.target) }
            return .json("{}")
        }
        defer { admin.stop() }
        let idp = try await TestIdentityProvider()
        idp.script("GET", "/oauth2/v1/authorize/callback",
                   LoopbackHTTPServer.Answer(status: "302 Found", headers: [("Location", admin.url("/admin/delete-all?confirm=yes"))], body: ""))
        let chain = RedirectChain(application: try idp.trust().applications[0], transport: idp.transport)
        await #expect {
            _ = try await chain.follow(from: idp.redirectURI + "?code=c&state=s") { _ in false }
        } throws: { error in
            if case .notFollowed = error as? RedirectChainError { return true }
            return false
        }
        #expect(idp.requests(to: "/oauth2/v1/authorize/callback").count == 1, "the application's own hop is followed")
        #expect(victim.withLock { $0 }.isEmpty, "the loopback URL outside the application is never fetched")
        // The login's own redirect URI ends the chain without a fetch.
        let login = admin.url("/callback")
        idp.script("GET", "/oauth2/v1/authorize/callback",
                   LoopbackHTTPServer.Answer(status: "302 Found", headers: [("Location", login + "?code=c2&state=s2")], body: ""))
        let reached = try await chain.follow(from: idp.redirectURI + "?code=c&state=s") { $0.hasPrefix(login + "?") }
        #expect(reached == login + "?code=c2&state=s2")
        #expect(victim.withLock { $0 }.isEmpty)
    }
}
