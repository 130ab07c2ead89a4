import AgentProtocol
import FoundationEssentials
import Settings

/// The docker-credential-helpers protocol (docker/docker-credential-helpers,
/// credentials/credentials.go): `get` reads a server URL on stdin and prints
/// `{"ServerURL","Username","Secret"}`; every error is one plain line on
/// stdout and status 1 — docker reads stdout, and treats exactly
/// `credentials not found in native keychain` as "no credentials here".
package enum DockerCredentialHelper {
    static let notFound = "credentials not found in native keychain"

    /// The longest input read: a server URL, or store's small JSON object.
    static let maxInput = 64 * 1024

    struct Credentials: Codable {
        var ServerURL: String
        var Username: String
        var Secret: String
    }

    /// A server as docker names it: `https://index.docker.io/v1/`,
    /// `registry.example.com`, `127.0.0.1:5000`; without a scheme it is https.
    package static func server(_ text: String) -> CredentialRoutes.Server? {
        CredentialRoutes.Server(text, defaultScheme: "https")
    }

    /// The server URL on stdin (trimmed, as credentials.go does).
    package static func serverURL(_ input: [UInt8]) throws(AgentError) -> String {
        guard input.count <= maxInput, let text = String(validating: input, as: UTF8.self) else {
            throw AgentError(.invalidInput, "the server URL is not UTF-8 text of at most 64 KiB")
        }
        // Go's strings.TrimSpace, as credentials.go trims it.
        let url = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        guard !url.isEmpty else { throw AgentError(.invalidInput, "no credentials server URL") }
        return url
    }

    /// The route for `url`, or the error docker reads as "none here".
    static func route(_ url: String, account explicit: String?) throws(AgentError) -> (account: String, username: String?) {
        if let explicit { return (explicit, nil) }
        let routes = try CredentialRoutes.load(environment: ProcessEnvironment.current)
        guard let server = server(url), let route = routes.route(for: server) else {
            routes.reportUnreadable()  // on stderr: docker reads only stdout
            throw AgentError(.notFound, notFound)
        }
        return (route.credential.account, route.credential.username)
    }

    static func get(_ input: [UInt8], account explicit: String?, minValid: Int,
                    on backend: Backend) async throws(AgentError) -> String {
        let url = try serverURL(input)
        guard let server = server(url), GitCredentialHelper.mayReceiveToken(server) else {
            throw AgentError(.notFound, notFound)
        }
        let (account, username) = try route(url, account: explicit)
        let token = try await FreshToken.get(account: account, minValid: minValid, prompting: .controllingTerminal, on: backend)
        return try encode(Credentials(ServerURL: url, Username: username ?? GitCredentialHelper.defaultUsername, Secret: token.accessToken))
    }

    /// `store`: what `docker login` saves. The token is the vault's, kept
    /// fresh by the agent, so a password typed at `docker login` is not kept
    /// anywhere: for a server passkey answers for, nothing is done and
    /// docker is told it worked; for any other, that passkey keeps no
    /// credentials (docker then says the login could not be saved).
    static func store(_ input: [UInt8], account explicit: String?) throws(AgentError) {
        guard input.count <= maxInput, let credentials = try? JSONDecoder().decode(Credentials.self, from: Data(input)) else {
            throw AgentError(.invalidInput, "store reads a JSON object {\"ServerURL\",\"Username\",\"Secret\"}")
        }
        guard !credentials.ServerURL.isEmpty else { throw AgentError(.invalidInput, "no credentials server URL") }
        do {
            _ = try route(credentials.ServerURL, account: explicit)
        } catch {
            throw AgentError(.unsupported, "passkey stores no passwords: it gives a server a token from the vault, "
                             + "and config.toml maps no account to \(credentials.ServerURL) (a [credential.NAME] table)")
        }
    }

    /// `erase` (`docker logout`): the tokens stay in the vault (`passkey
    /// logout ACCOUNT` ends the session); for an unmapped server, "not found".
    static func erase(_ input: [UInt8], account explicit: String?) throws(AgentError) {
        _ = try route(try serverURL(input), account: explicit)
    }

    /// `list`: every server config.toml maps, with the user name docker will see.
    static func list() throws(AgentError) -> String {
        let routes = try CredentialRoutes.load(environment: ProcessEnvironment.current).routes
        var servers: [String: String] = [:]
        for route in routes {
            let name = route.credential.url ?? route.credential.host ?? ""
            servers[name] = route.credential.username ?? GitCredentialHelper.defaultUsername
        }
        return try encode(servers)
    }

    static func encode<T: Encodable>(_ value: T) throws(AgentError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { throw AgentError(.internal, "cannot write the answer as JSON") }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
