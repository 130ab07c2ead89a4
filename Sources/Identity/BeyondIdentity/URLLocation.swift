import FoundationEssentials
import Tokens

/// A URL as the trust rules compare it: parsed once (Foundation's RFC 3986
/// parser, the one the HTTP client connects by, after the `Endpoint` rule),
/// scheme and host lowercased, the port made explicit, the path kept
/// percent-encoded. A path a server could read as another one — a `.` or
/// `..` segment (encoded or not), an encoded `/` or `\` — is no location at
/// all, so `…/applications/A/../../B` never passes for a path under `A`.
struct URLLocation: Equatable {
    let scheme: String
    let host: String
    let port: Int
    let path: String
    let query: String?

    init(scheme: String, host: String, port: Int, path: String, query: String?) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.query = query
    }

    init?(_ url: String) {
        guard Endpoint.problem(url) == nil, let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
              let host = parts.percentEncodedHost?.lowercased(), !host.isEmpty,
              let port = parts.port ?? Self.defaultPort(scheme) else { return nil }
        let path = parts.percentEncodedPath
        guard Self.isPlain(path) else { return nil }
        self.init(scheme: scheme, host: host, port: port, path: path, query: parts.percentEncodedQuery)
    }

    static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "https": return 443
        case "http": return 80
        default: return nil
        }
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

    /// What a trust rule names: an origin (scheme optional, port optional
    /// meaning the scheme's default) and a path prefix ("" for all paths).
    struct Pattern: Equatable {
        let scheme: String?
        let host: String
        let port: Int?
        let pathPrefix: String

        init(scheme: String?, host: String, port: Int?, pathPrefix: String) {
            self.scheme = scheme
            self.host = host
            self.port = port
            self.pathPrefix = pathPrefix
        }

        /// `host`, `host:port`, `[::1]:port`: nothing else (no scheme, path or user).
        init?(hostAndPort entry: String) {
            guard !entry.isEmpty, entry.utf8.count <= 260, !entry.contains("/"), !entry.contains("@"),
                  let parts = URLComponents(string: "https://" + entry), let host = parts.percentEncodedHost?.lowercased(),
                  !host.isEmpty, !host.contains("%"), parts.percentEncodedPath.isEmpty, parts.percentEncodedQuery == nil else { return nil }
            if let port = parts.port, !(1...65535).contains(port) { return nil }
            self.init(scheme: nil, host: host, port: parts.port, pathPrefix: "")
        }

        func matches(_ url: URLLocation) -> Bool {
            guard scheme == nil || scheme == url.scheme, host == url.host, url.port == (port ?? URLLocation.defaultPort(url.scheme)) else {
                return false
            }
            return pathPrefix.isEmpty || url.path == pathPrefix || url.path.hasPrefix(pathPrefix + "/")
        }

        /// Whether `other` is on the same scheme, host and port as this pattern.
        func sameOrigin(_ other: URLLocation) -> Bool {
            URLLocation.Pattern(scheme: scheme, host: host, port: port, pathPrefix: "").matches(other)
        }

        var shown: String {
            let portText = port.map { ":\($0)" } ?? ""
            return (scheme.map { "\($0)://" } ?? "") + host + portText + pathPrefix
        }
    }
}
