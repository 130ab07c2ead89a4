import OktaIDX
import OpenID
import Testing
import TestSupport
import URLPolicy

/// Where IDX forms may go: the issuer's origin, compared by the rule every
/// trusted-host check uses (Tokens' `URLLocation`): case and an explicit
/// default port do not matter, a percent-encoded host is never the issuer's.
@Suite(.ownThreads) struct IDXOriginTests {
    static func endpoints(_ issuer: String) throws -> IDXEndpoints {
        try IDXEndpoints(metadata: ProviderMetadata(issuer: issuer, authorizationEndpoint: issuer + "/v1/authorize",
                                                    tokenEndpoint: issuer + "/v1/token", jwksURI: issuer + "/v1/keys"))
    }

    @Test("upper case and an explicit :443 are the issuer's origin; the origin is serialized without the default port")
    func caseAndDefaultPort() throws {
        for issuer in ["https://acme.okta.test/oauth2/default", "https://ACME.Okta.test:443/oauth2/default"] {
            let endpoints = try Self.endpoints(issuer)
            #expect(endpoints.origin == "https://acme.okta.test", "\(issuer)")
            #expect(endpoints.host == "acme.okta.test")
            #expect(endpoints.introspect == "https://acme.okta.test/idp/idx/introspect")
            for href in ["https://acme.okta.test/idp/idx/identify", "https://ACME.OKTA.TEST/idp/idx/identify",
                         "HTTPS://acme.okta.test:443/idp/idx/identify"] {
                #expect(endpoints.isOnOrigin(href), "\(issuer) \(href)")
            }
            for href in ["https://acme.okta.test:8443/idp/idx/identify", "https://acme.okta.test.evil.example/idp/idx/identify",
                         "http://acme.okta.test/idp/idx/identify", "https://evil.example/idp/idx/identify"] {
                #expect(!endpoints.isOnOrigin(href), "\(issuer) \(href)")
            }
        }
        #expect(try Self.endpoints("http://127.0.0.1:8080/oauth2/default").origin == "http://127.0.0.1:8080")
    }

    @Test("a percent-encoded host is never the issuer's origin, nor an issuer")
    func percentEncodedHost() throws {
        let endpoints = try Self.endpoints("https://acme.okta.test/oauth2/default")
        for host in ["%61cme.okta.test", "acme%2Eokta.test", "ACME.OKTA.%54EST"] {
            #expect(!endpoints.isOnOrigin("https://\(host)/idp/idx/identify"), "\(host)")
            #expect(throws: IDXError.self, "\(host)") { try Self.endpoints("https://\(host)/oauth2/default") }
        }
    }
}
