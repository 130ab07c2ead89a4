import FoundationEssentials

/// A URL as the trust rules compare it — whose origin it is, and where
/// under it: parsed once (Foundation's RFC 3986 parser, the one the HTTP
/// client connects by, after the `Endpoint` rule), scheme and host
/// lowercased, the port made explicit (443 for https, 80 for http), the
/// path kept percent-encoded. So `https://AUTH.example.com:443/x` and
/// `https://auth.example.com/x` are one location.
///
/// A percent-encoded host is no location at all (the `Endpoint` rule
/// refuses it): `auth%2Eexample.com` could decode into another host than it
/// reads as, and two readers could decode it differently. Nor is a path a
/// server could read as another one — a `.` or `..` segment (encoded or
/// not), an encoded `/` or `\` — so `…/applications/A/../../B` never passes
/// for a path under `A`.
///
/// Every check of "is this URL on that host" goes through here: the
/// trusted applications of invoke URLs (BeyondIdentity), the IDX forms'
/// origin (OktaIDX).
public struct URLLocation: Equatable, Sendable {
    public let scheme: String
    public let host: String
    public let port: Int
    public let path: String
    public let query: String?

    public init(scheme: String, host: String, port: Int, path: String, query: String?) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.query = query
    }

    public init?(_ url: String) {
        guard Endpoint.problem(url) == nil, let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
              let host = parts.percentEncodedHost?.lowercased(), !host.isEmpty, !host.contains("%"),
              let port = parts.port ?? Self.defaultPort(scheme) else { return nil }
        let path = parts.percentEncodedPath
        guard Self.isPlain(path) else { return nil }
        self.init(scheme: scheme, host: host, port: port, path: path, query: parts.percentEncodedQuery)
    }

    public static func defaultPort(_ scheme: String) -> Int? {
        switch scheme.lowercased() {
        case "https": return 443
        case "http": return 80
        default: return nil
        }
    }

    /// `scheme://host[:port]`, the port left out when it is the scheme's
    /// default — an origin as RFC 6454 serializes it (and WebAuthn's
    /// clientData and the `Origin` header carry it).
    public var origin: String {
        scheme + "://" + host + (port == Self.defaultPort(scheme) ? "" : ":\(port)")
    }

    /// The URL again from its parsed parts: scheme and host lowercased, the
    /// default port left out, path and query as written, no fragment — what
    /// a rule checked is exactly what is fetched.
    public var url: String {
        origin + path + (query.map { "?" + $0 } ?? "")
    }

    /// Whether `other` has the same scheme, host and port.
    public func isSameOrigin(_ other: URLLocation) -> Bool {
        scheme == other.scheme && host == other.host && port == other.port
    }

    private static func isPlain(_ path: String) -> Bool {
        let lower = path.lowercased()
        guard !lower.contains("%2f"), !lower.contains("%5c"), !lower.contains("\\") else { return false }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            let lower = segment.lowercased()
            if ["." , "..", "%2e", "%2e%2e", ".%2e", "%2e."].contains(lower) { return false }
        }
        return true
    }
}
