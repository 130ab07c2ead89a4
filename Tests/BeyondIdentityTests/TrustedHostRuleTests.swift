import BeyondIdentity
import FoundationEssentials
import Harness
import HTTPTransport
import Testing
import TestSupport
import Tokens
import WebAuthnJSON

/// The one trusted-host rule, on the inputs where the agent's and the
/// library's checks used to disagree: a host in upper case, an explicit
/// default port (`:443`), a percent-encoded host. Every place that asks —
/// a key set, the hosts of a proof or a redirect, a realm, a binding link,
/// a `trusted-hosts` entry, a binding's RP ID, a redirect chain's hop —
/// answers the same: case and the default port do not matter, a
/// percent-encoded host is never trusted.
@Suite(.ownThreads) struct TrustedHostRuleTests {
    static let issuer = "https://auth.example.com/v1/tenants/t1/realms/r1/applications/a1"

    static func trust(issuer: String = issuer, hosts: [String] = ["acme.okta.example"]) throws -> InvokeTrust {
        InvokeTrust(applications: [try TrustedApplication(name: "acme", issuer: issuer, hosts: hosts)])
    }

    @Test("upper case: the same host, wherever it is written")
    func upperCase() throws {
        for issuer in [Self.issuer, "HTTPS://AUTH.Example.COM/v1/tenants/t1/realms/r1/applications/a1"] {
            let trust = try Self.trust(issuer: issuer, hosts: ["ACME.Okta.Example"])
            let application = trust.applications[0]
            #expect(try trust.application(forKeySet: "https://AUTH.EXAMPLE.COM/v1/tenants/t1/realms/r1/applications/a1/.well-known/jwks.json")
                .name == "acme")
            #expect(try trust.application(forKeySet: Self.issuer + "/.well-known/jwks.json").name == "acme")
            #expect(application.isOnItsHosts("https://Acme.OKTA.example/oauth2/v1/authorize/callback"))
            #expect(application.isOnItsHosts("https://auth.EXAMPLE.com/v1/tenants/t1/realms/r1/transactions/x/prove"))
            #expect(try trust.application(forRealm: "https://Auth.Example.Com", tenantId: "t1", realmId: "r1").name == "acme")
            #expect(try trust.application(forBindingLink:
                "https://AUTH.example.com/v1/tenants/t1/realms/r1/identities/i/credential-binding-jobs/j:invokeAuthenticator?token=x").name == "acme")
            #expect(application.relyingParties.contains("auth.example.com"))
        }
        let whole = try TrustedApplication.wholeHost("AUTH.Example.com")
        #expect(whole.isOnItsHosts("https://auth.example.com/x") && whole.isOnItsHosts("https://AUTH.EXAMPLE.COM/x"))
        // Case changes nothing, and nothing else either: a path's case is the server's.
        #expect(throws: InvokeError.self) {
            try Self.trust().application(forKeySet: "https://auth.example.com/V1/tenants/t1/realms/r1/applications/a1/.well-known/jwks.json")
        }
    }

    @Test("an explicit :443 is https's default port: the same origin; another port is another origin")
    func defaultPort() throws {
        for issuer in [Self.issuer, "https://auth.example.com:443/v1/tenants/t1/realms/r1/applications/a1"] {
            let trust = try Self.trust(issuer: issuer, hosts: ["acme.okta.example:443"])
            let application = trust.applications[0]
            #expect(try trust.application(forKeySet: "https://auth.example.com:443/v1/tenants/t1/realms/r1/applications/a1/.well-known/jwks.json")
                .name == "acme")
            #expect(try trust.application(forKeySet: Self.issuer + "/.well-known/jwks.json").name == "acme")
            #expect(application.isOnItsHosts("https://acme.okta.example/cb") && application.isOnItsHosts("https://acme.okta.example:443/cb"))
            #expect(application.isOnItsHosts("https://auth.example.com:443/x"))
            #expect(!application.isOnItsHosts("https://auth.example.com:8443/x"))
            #expect(!application.isOnItsHosts("https://acme.okta.example:444/cb"))
            #expect(try trust.application(forRealm: "https://auth.example.com:443/", tenantId: "t1", realmId: "r1").name == "acme")
            #expect(throws: InvokeError.self) { try trust.application(forRealm: "https://auth.example.com:8443", tenantId: "t1", realmId: "r1") }
            #expect(try trust.application(forBindingLink:
                "https://auth.example.com:443/v1/tenants/t1/realms/r1/identities/i/credential-binding-jobs/j:invokeAuthenticator?token=x").name == "acme")
        }
        let whole = try TrustedApplication.wholeHost("auth.example.com:443")
        #expect(whole.isOnItsHosts("https://auth.example.com/x"))
        let plain = try TrustedApplication.wholeHost("auth.example.com")
        #expect(plain.isOnItsHosts("https://auth.example.com:443/x"))
        #expect(!plain.isOnItsHosts("https://auth.example.com:8443/x"))
    }

    @Test("a percent-encoded host is never trusted, even one that decodes into a trusted host")
    func percentEncodedHost() throws {
        let trust = try Self.trust()
        let application = trust.applications[0]
        for host in ["%61uth.example.com", "auth%2Eexample.com", "auth.example.com%2F..%2Fevil.example", "AUTH.EXAMPLE.%43OM"] {
            #expect(throws: InvokeError.self, "\(host)") {
                try trust.application(forKeySet: "https://\(host)/v1/tenants/t1/realms/r1/applications/a1/.well-known/jwks.json")
            }
            #expect(!application.isOnItsHosts("https://\(host)/x"), "\(host)")
            #expect(throws: InvokeError.self, "\(host)") { try trust.application(forRealm: "https://\(host)", tenantId: "t1", realmId: "r1") }
            #expect(throws: InvokeError.self, "\(host)") {
                try trust.application(forBindingLink:
                    "https://\(host)/v1/tenants/t1/realms/r1/identities/i/credential-binding-jobs/j:invokeAuthenticator?token=x")
            }
            // Nor may config.toml name one.
            #expect(throws: InvokeTrustError.self, "\(host)") { try TrustedApplication.wholeHost(host) }
            #expect(throws: InvokeTrustError.self, "\(host)") { try TrustedApplication(name: "x", issuer: "https://\(host)/app") }
            #expect(throws: InvokeTrustError.self, "\(host)") {
                try TrustedApplication(name: "x", issuer: Self.issuer, hosts: [host])
            }
        }
        #expect(!application.isOnItsHosts("https://acme.okta%2Eexample/cb"))
    }

    @Test("config.toml's entries: the usable ones trusted, the others ignored with why")
    func configuredEntries() throws {
        let trust = InvokeTrust(entries: [
            TrustedApplication.Entry(name: "acme", issuer: Self.issuer, hosts: ["acme.okta.example"]),
            TrustedApplication.Entry(name: "plain", issuer: "http://auth.example.com/app"),
            TrustedApplication.Entry(name: "suffix", issuer: "https://a.example.co.uk/app", relyingParties: ["co.uk"]),
        ], trustedHosts: ["LEGACY.example.com:443", "%6cegacy.example.com"])
        #expect(trust.applications.map(\.name) == ["acme", "legacy.example.com:443"])
        #expect(trust.ignored.map(\.application) == ["plain", "suffix", "%6cegacy.example.com"])
        #expect(try trust.application(forKeySet: "https://legacy.example.com/k/.well-known/jwks.json").name == "legacy.example.com:443")
    }

    @Test("a binding's RP ID: one of the application's, with an origin it may use, by the rule a request's RP ID meets")
    func bindingRelyingParty() throws {
        let trust = try Self.trust()
        let application = trust.applications[0]
        func options(_ rpId: String?) -> PublicKeyCredentialCreationOptionsJSON {
            PublicKeyCredentialCreationOptionsJSON(
                rp: PublicKeyCredentialRpEntity(id: rpId, name: "Acme"),
                user: PublicKeyCredentialUserEntityJSON(id: Base64URLBytes([1]), name: "jane", displayName: "Jane"),
                challenge: Base64URLBytes(Array(repeating: 7, count: 16)), pubKeyCredParams: [])
        }
        try trust.check(binding: options("Example.COM"), origin: "https://AUTH.example.com:443", application: application)
        try trust.check(binding: options("auth.example.com"), origin: "https://auth.example.com", application: application)
        for (rpId, origin) in [("github.com", "https://github.com"), ("example.com", "https://evil.example"),
                               ("example.com", "https://%61uth.example.com"), ("example.com", "http://auth.example.com")] {
            #expect(throws: InvokeError.self, "\(rpId) \(origin)") {
                try trust.check(binding: options(rpId), origin: origin, application: application)
            }
        }
        #expect(throws: InvokeError.foreignRelyingParty(rpId: "", application: application.shown)) {
            try trust.check(binding: options(nil), origin: "https://auth.example.com", application: application)
        }
    }

    @Test("a redirect chain: a hop written in another case is followed; a percent-encoded host is not fetched")
    func redirectChainHops() async throws {
        let idp = try await TestIdentityProvider()
        let application = try idp.trust().applications[0]
        let chain = RedirectChain(application: application, transport: idp.transport)
        let login = "http://127.0.0.1:9/callback"
        idp.script("GET", "/oauth2/v1/authorize/callback",
                   LoopbackHTTPServer.Answer(status: "302 Found", headers: [("Location", login + "?code=c&state=s")], body: ""))
        let shouted = idp.redirectURI.replacing("http://", with: "HTTP://")
        #expect(try await chain.follow(from: shouted + "?code=c&state=s") { $0.hasPrefix(login + "?") } == login + "?code=c&state=s")
        #expect(idp.requests(to: "/oauth2/v1/authorize/callback").count == 1)

        let encoded = idp.redirectURI.replacing("127.0.0.1", with: "%31%32%37.0.0.1")
        await #expect {
            _ = try await chain.follow(from: encoded + "?code=c&state=s") { _ in false }
        } throws: { error in
            if case .notFollowed = error as? RedirectChainError { return true }
            return false
        }
        #expect(idp.requests(to: "/oauth2/v1/authorize/callback").count == 1, "nothing more was fetched")
    }
}
