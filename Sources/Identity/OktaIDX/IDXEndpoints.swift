import FoundationEssentials
import OpenID
import Tokens
import URLPolicy

/// Where IDX lives for an issuer (okta-bi.md §3.1): interact beside the
/// authorization endpoint (its last path segment replaced by `interact`,
/// as okta-mobile-swift does), introspect and the forms at the org's root —
/// the issuer's origin, which is also the WebAuthn origin and the `Origin`
/// header of every IDX call.
public struct IDXEndpoints: Sendable, Equatable {
    public let interact: String
    public let introspect: String
    /// `scheme://host[:port]` of the issuer, its default port left out (as
    /// a browser serializes an origin: the WebAuthn origin the server expects).
    public let origin: String
    public let host: String
    /// The issuer's location: forms go only to its origin.
    let issuer: URLLocation

    public init(metadata: ProviderMetadata) throws(IDXError) {
        guard let issuer = URLLocation(metadata.issuer) else { throw .noInteractEndpoint(metadata.issuer) }
        self.issuer = issuer
        host = issuer.host
        origin = issuer.origin
        introspect = origin + "/idp/idx/introspect"
        guard var parts = URLComponents(string: metadata.authorizationEndpoint), parts.query == nil,
              let slash = parts.path.lastIndex(of: "/"), parts.path.index(after: slash) < parts.path.endIndex else {
            throw .noInteractEndpoint(metadata.authorizationEndpoint)
        }
        parts.path = String(parts.path[...slash]) + "interact"
        guard let url = parts.string, Endpoint.problem(url) == nil else { throw .noInteractEndpoint(metadata.authorizationEndpoint) }
        interact = url
    }

    /// Whether `url` is on the issuer's origin: scheme, host and port
    /// compared as the trust rules compare them (`URLLocation`: case,
    /// default port, a percent-encoded host refused), never prefix-matched.
    public func isOnOrigin(_ url: String) -> Bool {
        guard let location = URLLocation(url) else { return false }
        return issuer.isSameOrigin(location)
    }
}
