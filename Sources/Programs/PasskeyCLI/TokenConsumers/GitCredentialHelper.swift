import AgentProtocol
import FoundationEssentials
import Settings
import URLPolicy

/// git's credential-helper protocol (gitcredentials(7), git-credential(1)):
/// git writes `key=value` lines, ended by a blank line or the end of input;
/// for `get` the helper answers the same way, here `username`, `password`
/// (the access token) and `password_expiry_utc` (git ≥ 2.41 forgets the
/// password then; older versions ignore the key). No match means no answer
/// and status 0, so that git asks its next helper or the person.
package enum GitCredentialHelper {
    /// The longest input read: git's own descriptions are a few hundred bytes.
    static let maxInput = 1 << 20

    /// The `key=value` lines until a blank one; a later value of a key wins
    /// (git's own rule), `key[]` values are lists git uses for other helpers.
    package static func parse(_ bytes: [UInt8]) throws(AgentError) -> [String: String] {
        guard bytes.count <= maxInput else { throw AgentError(.invalidInput, "git's credential description is longer than 1 MiB") }
        guard let text = String(validating: bytes, as: UTF8.self), !text.contains("\0") else {
            throw AgentError(.invalidInput, "git's credential description is not UTF-8 text")
        }
        var values: [String: String] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: "=") else {
                throw AgentError(.invalidInput, "git's credential description has a line without `=`")
            }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }

    /// The server git describes: `protocol`, `host` (with its port), and
    /// `path` when credential.useHttpPath is set; or `url`, which git may
    /// send instead (git-credential(1)).
    package static func server(_ values: [String: String]) -> CredentialRoutes.Server? {
        if let url = values["url"], values["host"] == nil { return CredentialRoutes.Server(url) }
        guard let scheme = values["protocol"], let host = values["host"], !host.contains("/"), !host.contains("@") else { return nil }
        return CredentialRoutes.Server("\(scheme)://\(host)/\(values["path"] ?? "")")
    }

    /// Whether a token may go to this server: https, or http to this machine
    /// (a token in clear over a network is anyone's on the way).
    package static func mayReceiveToken(_ server: CredentialRoutes.Server) -> Bool {
        server.scheme == "https"
            || (server.scheme == "http" && (LoopbackHost.isLoopback(server.host) || LoopbackHost.isLoopbackAddress(server.host)))
    }

    /// `get`: the lines to print (empty when passkey has nothing for this server).
    static func get(_ values: [String: String], account explicit: String?, minValid: Int,
                    on backend: Backend) async throws(AgentError) -> String {
        guard let server = server(values) else { return "" }
        var account = explicit
        var username = values["username"]
        if account == nil {
            let routes = try CredentialRoutes.load(environment: ProcessEnvironment.current)
            guard let route = routes.route(for: server) else {
                routes.reportUnreadable()
                return ""
            }
            account = route.credential.account
            username = username ?? route.credential.username
        }
        guard let account else { return "" }
        guard mayReceiveToken(server) else {
            // Said on stderr (git shows it) and nothing answered: git goes on without us.
            throw AgentError(.invalidInput, "a token goes only over https (or http to this machine), not to \(server.scheme)://\(server.host)")
        }
        let token = try await FreshToken.get(account: account, minValid: minValid, prompting: .controllingTerminal, on: backend)
        var lines = ["username=\(username ?? defaultUsername)", "password=\(token.accessToken)"]
        if let expiry = token.expiresAt { lines.append("password_expiry_utc=\(expiry)") }
        for line in lines where line.contains("\n") || line.contains("\0") {
            throw AgentError(.invalidInput, "the token or user name holds a line break, which git's protocol cannot carry")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The user name sent with the token when neither git nor config.toml
    /// names one: GitLab's name for an OAuth token, and any name does for
    /// hosts that read only the password (GitHub, Gitea, Bitbucket Data Center
    /// take the token as the password whatever the name).
    static let defaultUsername = "oauth2"
}
