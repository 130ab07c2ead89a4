import AgentProtocol
import FoundationEssentials
import Settings
import StandardError

/// Which account's token a server gets: the `[credential.NAME]` tables of
/// config.toml, matched on the parsed URL (scheme, host, port and whole path
/// segments; never a prefix of the text, so `https://git.example.com` does
/// not match `https://git.example.com.evil.org`).
package struct CredentialRoutes {
    /// A server as a tool names it.
    package struct Server: Equatable {
        package var scheme: String
        /// Lowercased; an IPv6 literal keeps its brackets.
        package var host: String
        package var port: Int?
        /// Path segments, without empty ones.
        package var path: [String]

        var effectivePort: Int? { port ?? Self.defaultPorts[scheme] }
        static let defaultPorts = ["https": 443, "http": 80]

        /// `scheme://host[:port][/path]`; a text with no `://` is a host (and
        /// path) under `defaultScheme`, as docker writes `registry.example.com`.
        package init?(_ text: String, defaultScheme: String? = nil) {
            guard text.utf8.count <= 4096, !text.contains(where: { $0.isWhitespace || $0.isNewline }) else { return nil }
            let full = text.contains("://") ? text : defaultScheme.map { "\($0)://\(text)" }
            guard let full, let components = URLComponents(string: full), let scheme = components.scheme?.lowercased(),
                  let host = components.percentEncodedHost, !host.isEmpty,
                  components.user == nil, components.password == nil else { return nil }
            self.init(scheme: scheme, host: host.lowercased(), port: components.port, path: components.percentEncodedPath)
            guard port.map({ (1...65_535).contains($0) }) ?? true else { return nil }
            // `team/../other` is not inside `team` (HTTP clients squash dot
            // segments before sending), whatever its text says; %2e is a dot too.
            guard !path.contains(where: { [".", ".."].contains($0.lowercased().replacing("%2e", with: ".")) }) else { return nil }
        }

        init(scheme: String, host: String, port: Int?, path: String) {
            self.scheme = scheme
            self.host = host.lowercased()
            self.port = port
            self.path = path.split(separator: "/").map(String.init)
        }
    }

    /// What config.toml said, each route with its parsed server.
    package struct Route {
        package var credential: Settings.Credential
        package var server: Server
        /// From `host =`: any scheme.
        var anyScheme: Bool
    }

    package let routes: [Route]
    /// Tables whose `url` or `host` passkey cannot read (a url without a
    /// scheme, a host with a path): named on stderr when nothing matched.
    let unreadable: [String]

    package init(_ credentials: [Settings.Credential]) {
        var routes: [Route] = [], unreadable: [String] = []
        for credential in credentials {
            if let url = credential.url, credential.host == nil, let server = Server(url), url.contains("://") {
                routes.append(Route(credential: credential, server: server, anyScheme: false))
            } else if let host = credential.host, credential.url == nil, !host.contains("/"),
                      let server = Server(host, defaultScheme: "https") {
                routes.append(Route(credential: credential, server: Server(scheme: "", host: server.host, port: server.port, path: ""),
                                    anyScheme: true))
            } else {
                unreadable.append(credential.name)
            }
        }
        self.routes = routes
        self.unreadable = unreadable
    }

    /// Reads config.toml ($XDG_CONFIG_HOME/passkey-agent/config.toml).
    static func load(environment: [String: String]) throws(AgentError) -> CredentialRoutes {
        do {
            return CredentialRoutes(try Settings.load(from: AgentPaths(environment: environment).configFile).credentials)
        } catch {
            throw AgentError(.invalidInput, error.description)
        }
    }

    /// Says on stderr which tables were ignored (git and a person at a terminal see it).
    func reportUnreadable() {
        for name in unreadable {
            StandardError.writeLine("passkey: [credential.\(name)] in config.toml names no server passkey can read "
                                    + "(url = \"https://HOST[:PORT][/PATH]\", or host = \"HOST[:PORT]\"); ignored")
        }
    }

    /// The route for `server`: the one whose path is longest among those
    /// that match (a team's path beats its whole host), the first table by
    /// name among equals; nil when none does.
    package func route(for server: Server) -> Route? {
        var best: Route?
        for route in routes where matches(route, server) {
            if best == nil || route.server.path.count > best!.server.path.count { best = route }
        }
        return best
    }

    private func matches(_ route: Route, _ server: Server) -> Bool {
        guard route.server.host == server.host else { return false }
        if route.anyScheme {
            // `host = "h"` is h on its scheme's own port; `host = "h:5000"` only port 5000.
            guard let port = route.server.port else { return server.port == nil || server.port == Server.defaultPorts[server.scheme] }
            return server.effectivePort == port
        }
        guard route.server.scheme == server.scheme, route.server.effectivePort == server.effectivePort else { return false }
        // A route's path is a prefix of the server's, segment by segment.
        return route.server.path.count <= server.path.count && Array(server.path.prefix(route.server.path.count)) == route.server.path
    }
}
