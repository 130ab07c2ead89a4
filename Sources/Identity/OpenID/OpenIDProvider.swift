import HTTPTransport
import Locking
import Tokens
import URLPolicy

/// One OpenID provider, found by discovery (`<issuer>/.well-known/openid-configuration`,
/// the document's issuer compared exactly; the revocation and device
/// endpoints it lacks from RFC 8414 metadata), and its signing keys (JWKS).
/// Both are cached in memory and, given a directory, on disk
/// (`ProviderCache`), for as long as the provider's `Cache-Control` says
/// (an hour by default, a day at most). Every endpoint the document names
/// passes Tokens' `Endpoint` rule: https, or http to this machine.
public final class OpenIDProvider: Sendable {
    public let issuer: String
    private let transport: HTTPTransport
    private let cacheDirectory: String?
    private let now: @Sendable () -> Int64
    private let cache: Locked<ProviderCache?> = Locked(nil)

    /// Bodies larger than this are no discovery document or key set.
    static let documentLimit = 1 << 20

    public init(issuer: String, transport: HTTPTransport, cacheDirectory: String?,
                now: @escaping @Sendable () -> Int64 = TokenSet.now) {
        self.issuer = issuer
        self.transport = transport
        self.cacheDirectory = cacheDirectory
        self.now = now
    }

    /// The discovery URL: the issuer with any trailing `/` removed, then
    /// `/.well-known/openid-configuration` (OIDC Discovery §4).
    public var discoveryURL: String {
        var base = issuer
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/.well-known/openid-configuration"
    }

    /// The provider's metadata, from the cache while it is fresh.
    public func metadata() async throws(OpenIDError) -> ProviderMetadata {
        let clock = now()
        if let cached = current(), let metadata = cached.metadata, clock < cached.metadataExpiresAt { return metadata }
        if let problem = Endpoint.problem(issuer) { throw .invalidIssuer(Endpoint.shown(issuer), reason: problem) }
        if issuer.contains("?") || issuer.contains("#") {
            throw .invalidIssuer(Endpoint.shown(issuer), reason: "an issuer has no query or fragment")
        }
        let url = discoveryURL
        let response = try await get(url) { .discovery(url: Endpoint.shown(url), reason: $0) }
        var metadata = try ProviderMetadata(discoveryDocument: response.body, issuer: issuer, url: Endpoint.shown(url))
        if metadata.revocationEndpoint == nil || metadata.deviceAuthorizationEndpoint == nil {
            try await addAuthorizationServerMetadata(to: &metadata)
        }
        update(storing: ProviderCache.mayStore(cacheControl: response.header("Cache-Control"))) { cache in
            if cache.metadata != metadata {
                // Another document may name another key set: the old keys go with it.
                cache.jwks = nil
                cache.jwksExpiresAt = 0
            }
            cache.metadata = metadata
            cache.metadataExpiresAt = OutsideSeconds.instant(ProviderCache.lifetime(cacheControl: response.header("Cache-Control")),
                                                             after: clock)
        }
        return metadata
    }

    /// Fills the endpoints discovery left out from the RFC 8414 document, when
    /// the provider has one for this issuer. A provider without one (any
    /// answer but 200, or no answer) is no error: discovery already succeeded.
    private func addAuthorizationServerMetadata(to metadata: inout ProviderMetadata) async throws(OpenIDError) {
        guard let url = AuthorizationServerMetadata.url(issuer: issuer), Endpoint.problem(url) == nil,
              let response = try? await transport.send("GET", url, headers: [("Accept", "application/json")]),
              response.status == 200, response.body.count <= Self.documentLimit,
              let found = try AuthorizationServerMetadata.endpoints(document: response.body, issuer: issuer, url: Endpoint.shown(url))
        else { return }
        metadata.revocationEndpoint = metadata.revocationEndpoint ?? found.revocation
        metadata.deviceAuthorizationEndpoint = metadata.deviceAuthorizationEndpoint ?? found.deviceAuthorization
    }

    /// The signing keys: from the cache while fresh, unless `refetch` (a
    /// token named a `kid` the cached set does not hold).
    func keySet(refetch: Bool) async throws(OpenIDError) -> JSONWebKeySet {
        let metadata = try await metadata()
        let clock = now()
        if !refetch, let cached = current(), let text = cached.jwks, clock < cached.jwksExpiresAt,
           let keys = JSONWebKeySet(Array(text.utf8)) {
            return keys
        }
        let url = metadata.jwksURI
        let response = try await get(url) { .jwks(url: Endpoint.shown(url), reason: $0) }
        guard let keys = JSONWebKeySet(response.body) else {
            throw .jwks(url: Endpoint.shown(url), reason: "it is not a JSON object with a `keys` array")
        }
        let text = String(decoding: response.body, as: UTF8.self)
        update(storing: ProviderCache.mayStore(cacheControl: response.header("Cache-Control"))) { cache in
            cache.jwks = text
            cache.jwksExpiresAt = OutsideSeconds.instant(ProviderCache.lifetime(cacheControl: response.header("Cache-Control")),
                                                         after: clock)
        }
        return keys
    }

    /// A GET answered 200 with a body of sensible size; `failure` words the rest.
    private func get(_ url: String, failure: (String) -> OpenIDError) async throws(OpenIDError) -> HTTPTransport.Response {
        let response: HTTPTransport.Response
        do {
            response = try await transport.send("GET", url, headers: [("Accept", "application/json")])
        } catch {
            throw .network(error)
        }
        guard response.status == 200 else { throw failure("it answered HTTP \(response.status)") }
        guard response.body.count <= Self.documentLimit else { throw failure("the answer is larger than \(Self.documentLimit) bytes") }
        return response
    }

    /// The cache in memory, loaded from disk the first time.
    private func current() -> ProviderCache? {
        cache.withLock { cache in
            if cache == nil, let cacheDirectory {
                cache = ProviderCache.load(directory: cacheDirectory, issuer: issuer, now: now())
            }
            return cache
        }
    }

    private func update(storing: Bool, _ change: (inout ProviderCache) -> Void) {
        let updated = cache.withLock { cache in
            var value = cache ?? ProviderCache(issuer: issuer)
            change(&value)
            cache = value
            return value
        }
        if storing, let cacheDirectory { updated.store(directory: cacheDirectory) }
    }
}
