import FoundationEssentials
@testable import OpenID
import Testing
import TestSupport

/// RFC 8414 metadata fills the endpoints an OpenID discovery document leaves
/// out (django-oauth-toolkit names `revocation_endpoint` only there), from
/// the document for this issuer only, under the same Endpoint rule.
@Suite(.ownThreads) struct AuthorizationServerMetadataTests {
    /// RFC 8414 §3.1's own example, plus a trailing slash and no path.
    @Test func theWellKnownSuffixGoesBetweenHostAndPath() {
        #expect(AuthorizationServerMetadata.url(issuer: "https://example.com/issuer1")
                == "https://example.com/.well-known/oauth-authorization-server/issuer1")
        #expect(AuthorizationServerMetadata.url(issuer: "https://example.com/a/b/")
                == "https://example.com/.well-known/oauth-authorization-server/a/b")
        #expect(AuthorizationServerMetadata.url(issuer: "http://127.0.0.1:8080")
                == "http://127.0.0.1:8080/.well-known/oauth-authorization-server")
        #expect(AuthorizationServerMetadata.url(issuer: "ftp://example.com/x") == nil)
    }

    @Test func endpointsDiscoveryLacksComeFromTheRFC8414Document() async throws {
        let server = try await TestProvider()
        server.state.withLock { state in
            state.omittedFromDiscovery = ["revocation_endpoint", "device_authorization_endpoint"]
            state.authorizationServerMetadata = #"{"issuer":"\#(server.issuer)","revocation_endpoint":"\#(server.issuer)/v1/revoke"}"#
        }
        let metadata = try await server.provider().metadata()
        #expect(metadata.revocationEndpoint == server.issuer + "/v1/revoke")
        #expect(metadata.deviceAuthorizationEndpoint == nil)
        #expect(server.requests(to: "/.well-known/oauth-authorization-server/oauth2/default").count == 1,
                "fetched at the RFC 8414 §3.1 address")

        // Revocation then reaches the endpoint only RFC 8414 names.
        let client = OpenIDClient(transport: server.transport, metadata: metadata, clientId: TestProvider.clientId)
        try await client.revoke("rt-1", hint: .refreshToken)
        let revocations = server.requests(to: "/v1/revoke")
        #expect(revocations.count == 1)
        let body = String(decoding: revocations.first?.body ?? [], as: UTF8.self)
        #expect(body.contains("token=rt-1"))
    }

    @Test func aCompleteDiscoveryDocumentIsNotSupplemented() async throws {
        let server = try await TestProvider()
        server.state.withLock { $0.authorizationServerMetadata = #"{"issuer":"\#(server.issuer)","revocation_endpoint":"\#(server.issuer)/other"}"# }
        let metadata = try await server.provider().metadata()
        #expect(metadata.revocationEndpoint == server.issuer + "/v1/revoke")
        #expect(server.requests(to: "/.well-known/oauth-authorization-server/oauth2/default").isEmpty)
    }

    /// RFC 8414 §3.3: metadata for another issuer MUST NOT be used; a page
    /// that is not JSON, or none at all, leaves the endpoint absent.
    @Test func anotherIssuersOrAnUnreadableDocumentIsNotUsed() async throws {
        for document in [#"{"issuer":"https://evil.example/oauth2/default","revocation_endpoint":"https://evil.example/revoke"}"#,
                         #"{"revocation_endpoint":"https://evil.example/revoke"}"#, "<html>app</html>", nil] {
            let server = try await TestProvider()
            server.state.withLock { state in
                state.omittedFromDiscovery = ["revocation_endpoint"]
                state.authorizationServerMetadata = document
            }
            let metadata = try await server.provider().metadata()
            #expect(metadata.revocationEndpoint == nil, "\(document ?? "404")")
        }
    }

    @Test func anEndpointOffThisMachineInPlainHTTPIsRefused() async throws {
        let server = try await TestProvider()
        server.state.withLock { state in
            state.omittedFromDiscovery = ["revocation_endpoint"]
            state.authorizationServerMetadata = #"{"issuer":"\#(server.issuer)","revocation_endpoint":"http://evil.example/revoke"}"#
        }
        await #expect {
            try await server.provider().metadata()
        } throws: { error in
            guard case .discovery(let url, let reason) = error as? OpenIDError else { return false }
            return url.contains("oauth-authorization-server") && reason.contains("revocation_endpoint")
        }
    }
}
