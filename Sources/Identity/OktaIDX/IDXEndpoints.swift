import FoundationEssentials
import OpenID
import Tokens

/// Where IDX lives for an issuer (okta-bi.md §3.1): interact beside the
/// authorization endpoint (its last path segment replaced by `interact`,
/// as okta-mobile-swift does), introspect and the forms at the org's root —
/// the issuer's origin, which is also the WebAuthn origin and the `Origin`
/// header of every IDX call.
public struct IDXEndpoints: Sendable, Equatable {
    public let interact: String
    public let introspect: String
    /// `scheme://host[:port]` of the issuer.
    public let origin: String
    public let host: String
    let scheme: String
    let port: Int?

    public init(metadata: ProviderMetadata) throws(IDXError) {
        guard let issuer = URLComponents(string: metadata.issuer), let scheme = issuer.scheme?.lowercased(),
              let host = issuer.host?.lowercased(), !host.isEmpty, Endpoint.problem(metadata.issuer) == nil else {
            throw .noInteractEndpoint(metadata.issuer)
        }
        self.scheme = scheme
        self.host = host
        port = issuer.port
        let authority = host.contains(":") ? "[\(host)]" : host
        origin = "\(scheme)://\(authority)\(port.map { ":\($0)" } ?? "")"
        introspect = origin + "/idp/idx/introspect"
        guard var parts = URLComponents(string: metadata.authorizationEndpoint), parts.query == nil,
              let slash = parts.path.lastIndex(of: "/"), parts.path.index(after: slash) < parts.path.endIndex else {
            throw .noInteractEndpoint(metadata.authorizationEndpoint)
        }
        parts.path = String(parts.path[...slash]) + "interact"
        guard let url = parts.string, Endpoint.problem(url) == nil else { throw .noInteractEndpoint(metadata.authorizationEndpoint) }
        interact = url
    }

    /// Whether `url` is on the issuer's origin (scheme, host and port parsed, not prefix-matched).
    public func isOnOrigin(_ url: String) -> Bool {
        guard Endpoint.problem(url) == nil, let parts = URLComponents(string: url),
              parts.scheme?.lowercased() == scheme, parts.host?.lowercased() == host else { return false }
        return Self.effectivePort(parts.port, scheme: scheme) == Self.effectivePort(port, scheme: scheme)
    }

    private static func effectivePort(_ port: Int?, scheme: String) -> Int {
        port ?? (scheme == "https" ? 443 : 80)
    }
}
