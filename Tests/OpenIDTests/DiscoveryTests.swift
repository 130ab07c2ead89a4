import FoundationEssentials
import Harness
import HTTPTransport
@testable import OpenID
import Locking
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite(.ownThreads) struct DiscoveryTests {
    @Test func readsTheProvidersMetadata() async throws {
        let server = try await TestProvider()
        let metadata = try await server.provider().metadata()
        #expect(metadata.issuer == server.issuer)
        #expect(metadata.tokenEndpoint == server.tokenEndpoint)
        #expect(metadata.jwksURI == server.issuer + "/v1/keys")
        #expect(metadata.revocationEndpoint == server.issuer + "/v1/revoke")
        #expect(metadata.deviceAuthorizationEndpoint == server.issuer + "/v1/device/authorize")
        #expect(metadata.endSessionEndpoint == nil)
        #expect(metadata.codeChallengeMethodsSupported == ["S256"])
        #expect(metadata.authorizationResponseIssParameterSupported)
        #expect(metadata.idTokenSigningAlgValuesSupported == ["ES256", "RS256"])
    }

    /// OIDC Discovery §4.3: the document's issuer must be the one asked
    /// for, exactly — a trailing slash is another issuer.
    @Test func anIssuerThatDiffersIsRefused() async throws {
        let server = try await TestProvider()
        server.state.withLock { $0.discoveryIssuer = server.issuer + "/" }
        await #expect(throws: OpenIDError.discoveryIssuerMismatch(expected: server.issuer, got: server.issuer + "/")) {
            try await server.provider().metadata()
        }
        server.state.withLock { $0.discoveryIssuer = "https://evil.example/oauth2/default" }
        await #expect(throws: OpenIDError.discoveryIssuerMismatch(expected: server.issuer, got: "https://evil.example/oauth2/default")) {
            try await server.provider().metadata()
        }
    }

    @Test func anEndpointOffThisMachineInPlainHTTPIsRefused() async throws {
        let server = try await TestProvider()
        server.state.withLock { $0.extraDiscovery["token_endpoint"] = quoted("http://evil.example/token") }
        await #expect {
            try await server.provider().metadata()
        } throws: { error in
            guard case .discovery(_, let reason) = error as? OpenIDError else { return false }
            return reason.contains("token_endpoint")
        }
        server.state.withLock { $0.extraDiscovery = ["end_session_endpoint": quoted("http://127.0.0.1:1@evil.example/logout")] }
        await #expect(throws: OpenIDError.self) { try await server.provider().metadata() }
    }

    @Test func aDocumentOfTheWrongShapeNamesTheMember() async throws {
        let server = try await TestProvider()
        server.state.withLock { $0.extraDiscovery["code_challenge_methods_supported"] = quoted("S256") }
        await #expect {
            try await server.provider().metadata()
        } throws: { error in
            guard case .discovery(_, let reason) = error as? OpenIDError else { return false }
            return reason.contains("code_challenge_methods_supported")
        }
    }

    @Test func anUnreachableProviderIsANetworkError() async throws {
        let provider = OpenIDProvider(issuer: "http://127.0.0.1:1/oauth2/default", transport: HTTPTransport(connectTimeout: .seconds(1)),
                                      cacheDirectory: nil)
        await #expect {
            try await provider.metadata()
        } throws: { error in
            guard case .network = error as? OpenIDError else { return false }
            return true
        }
        let plain = OpenIDProvider(issuer: "http://id.example.com", transport: HTTPTransport(), cacheDirectory: nil)
        await #expect {
            try await plain.metadata()
        } throws: { error in
            guard case .invalidIssuer = error as? OpenIDError else { return false }
            return true
        }
    }

    /// The metadata and keys are cached in memory and on disk (0600 in a
    /// 0700 directory): a second provider object with the same directory
    /// asks the server nothing until the lifetime passes.
    @Test func metadataAndKeysAreCachedOnDisk() async throws {
        let server = try await TestProvider()
        let directory = try TemporaryDirectory.make(prefix: "openid-cache")
        defer { TemporaryDirectory.remove(directory) }
        let cacheDirectory = directory + "/cache/oidc"
        let clock = Locked<Int64>(TokenClock.real())
        let now: @Sendable () -> Int64 = { clock.withLock { $0 } }
        let first = server.provider(cacheDirectory: cacheDirectory, now: now)
        _ = try await first.metadata()
        _ = try await first.metadata()
        let validator = IDTokenValidator(provider: first, clientId: TestProvider.clientId, now: now)
        _ = try await validator.validate(try await server.idToken(server.claims(now: now())), nonce: "n-1")
        #expect(server.state.withLock { ($0.discoveryFetches, $0.jwksFetches) } == (1, 1))

        let file = ProviderCache.path(directory: cacheDirectory, issuer: server.issuer)
        var info = stat()
        #expect(stat(file, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(stat(cacheDirectory, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)

        let second = server.provider(cacheDirectory: cacheDirectory, now: now)
        let again = IDTokenValidator(provider: second, clientId: TestProvider.clientId, now: now)
        _ = try await again.validate(try await server.idToken(server.claims(now: now())), nonce: "n-1")
        #expect(server.state.withLock { ($0.discoveryFetches, $0.jwksFetches) } == (1, 1))

        // The server said max-age=300: five minutes later both are fetched again.
        clock.withLock { $0 += 301 }
        _ = try await again.validate(try await server.idToken(server.claims(now: now())), nonce: "n-1")
        #expect(server.state.withLock { ($0.discoveryFetches, $0.jwksFetches) } == (2, 2))
    }

    /// A cache file for another issuer (or a damaged one) is not believed.
    @Test func aCacheFileForAnotherIssuerIsIgnored() async throws {
        let server = try await TestProvider()
        let directory = try TemporaryDirectory.make(prefix: "openid-cache")
        defer { TemporaryDirectory.remove(directory) }
        let planted = ProviderCache(issuer: "https://other.example", metadata: try await server.provider().metadata(),
                                    metadataExpiresAt: TokenClock.real() + 3000)
        let text = String(decoding: try JSONEncoder().encode(planted), as: UTF8.self)
        try TextFile.write(text, to: ProviderCache.path(directory: directory, issuer: server.issuer))
        _ = try await server.provider(cacheDirectory: directory).metadata()
        #expect(server.state.withLock { $0.discoveryFetches } == 2)
    }

    @Test func cacheLifetimeFollowsCacheControlWithinBounds() {
        #expect(ProviderCache.lifetime(cacheControl: nil) == 3600)
        #expect(ProviderCache.lifetime(cacheControl: "public, max-age=600") == 600)
        #expect(ProviderCache.lifetime(cacheControl: "max-age=99999999999999999999999") == 86_400)
        #expect(ProviderCache.lifetime(cacheControl: "max-age=0") == 60)
        #expect(ProviderCache.lifetime(cacheControl: "no-store") == 60)
        #expect(ProviderCache.lifetime(cacheControl: "max-age=soon") == 3600)
        #expect(!ProviderCache.mayStore(cacheControl: "private, no-store"))
    }
}
