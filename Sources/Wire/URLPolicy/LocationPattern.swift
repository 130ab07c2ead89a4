import FoundationEssentials

extension URLLocation {
    /// What a trust rule names: an origin (scheme optional, port optional
    /// meaning the scheme's default) and a path prefix ("" for all paths),
    /// matched against a parsed `URLLocation` — never against text.
    public struct Pattern: Equatable, Sendable {
        public let scheme: String?
        public let host: String
        public let port: Int?
        public let pathPrefix: String

        public init(scheme: String?, host: String, port: Int?, pathPrefix: String) {
            self.scheme = scheme
            self.host = host
            self.port = port
            self.pathPrefix = pathPrefix
        }

        /// `host`, `host:port`, `[::1]:port`: nothing else (no scheme, path,
        /// user or percent-encoding); the host lowercased, `:443` kept as a
        /// port that equals https's default.
        public init?(hostAndPort entry: String) {
            guard !entry.isEmpty, entry.utf8.count <= 260, !entry.contains("/"), !entry.contains("@"),
                  let parts = URLComponents(string: "https://" + entry), let host = parts.percentEncodedHost?.lowercased(),
                  !host.isEmpty, !host.contains("%"), parts.percentEncodedPath.isEmpty, parts.percentEncodedQuery == nil else { return nil }
            if let port = parts.port, !(1...65535).contains(port) { return nil }
            self.init(scheme: nil, host: host, port: parts.port, pathPrefix: "")
        }

        public func matches(_ url: URLLocation) -> Bool {
            guard scheme == nil || scheme == url.scheme, host == url.host, url.port == (port ?? URLLocation.defaultPort(url.scheme)) else {
                return false
            }
            return pathPrefix.isEmpty || url.path == pathPrefix || url.path.hasPrefix(pathPrefix + "/")
        }

        /// Whether `other` is on the same scheme, host and port as this pattern.
        public func sameOrigin(_ other: URLLocation) -> Bool {
            URLLocation.Pattern(scheme: scheme, host: host, port: port, pathPrefix: "").matches(other)
        }

        public var shown: String {
            let portText = port.map { ":\($0)" } ?? ""
            return (scheme.map { "\($0)://" } ?? "") + host + portText + pathPrefix
        }
    }
}
