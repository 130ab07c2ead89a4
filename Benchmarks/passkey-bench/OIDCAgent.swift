import FoundationEssentials
import Harness
import Settings

/// oidc-agent (Debian's `oidc-agent-cli`, C), the peer that does what
/// `passkey token get` does: `oidc-token ACCOUNT` asks a per-user agent for
/// a cached access token over a Unix socket. Run in the foreground on a
/// private socket with a temporary HOME; its one account is imported
/// without a prompt from a refresh token (`oidc-gen --rt-env`), the client
/// and issuer from a 0600 file — so no secret is on any command line.
final class RunningOIDCAgent {
    struct Account {
        var name: String
        var issuer: String
        var clientId: String
        var clientSecret: String
        var refreshToken: String
        var scope: String
    }

    private let daemon: PrivateDaemon
    var socketPath: String { daemon.socketPath }
    /// What `oidc-token` needs to find this agent (and only this one).
    var environment: [String: String] { daemon.environment }

    init(oidcAgent: String, oidcGen: String, account: Account) throws(BenchError) {
        // -d: the console, no fork, so SIGTERM reaches it; --no-autoload: never a prompt.
        daemon = try PrivateDaemon(name: "oidc-agent", executable: oidcAgent, socketName: "oidc-agent.sock") { directory, socketPath in
            (["-d", "-a", socketPath, "--no-autoload", "--quiet"], ["HOME": directory, "OIDC_SOCK": socketPath])
        }
        do throws(BenchError) { try importAccount(account, oidcGen: oidcGen) } catch {
            daemon.stop()
            throw error
        }
    }

    /// `oidc-gen -f FILE --rt-env …`: the account configured and loaded into
    /// the agent, which then holds it (and refreshes its access token) itself.
    private func importAccount(_ account: Account, oidcGen: String) throws(BenchError) {
        struct ClientFile: Encodable {
            var name: String
            var issuer_url: String
            var client_id: String
            var client_secret: String
            var scope: String
            var redirect_uris = ["http://127.0.0.1:4242"]
        }
        let directory = daemon.directory
        let file = directory + "/client.json"
        let text: String
        do {
            text = String(decoding: try JSONEncoder().encode(ClientFile(
                name: account.name, issuer_url: account.issuer, client_id: account.clientId,
                client_secret: account.clientSecret, scope: account.scope)), as: UTF8.self)
        } catch {
            throw .stepFailed("writing oidc-gen's client file", reason: "\(error)")
        }
        var environment = self.environment
        environment["OIDC_REFRESH_TOKEN"] = account.refreshToken
        environment["OIDC_ENCRYPTION_PW"] = "passkey-bench-" + account.name
        let generated = try BenchError.during("importing the account with oidc-gen") {
            try TextFile.write(text, to: file)
            return try ProcessResult.run(oidcGen, ["-f", file, "--rt-env", "--pw-env", "--prompt=none", "--confirm-default",
                                                   "--no-url-call", account.name],
                                         standardInput: nil, environment: environment, scratch: directory, timeout: 60)
        }
        guard generated.status == 0 else {
            throw .stepFailed("oidc-gen -f … \(account.name)",
                              reason: "exited \(generated.status): \(generated.standardError.prefix(400))\(generated.standardOutput.prefix(400))")
        }
    }

    func stop() { daemon.stop() }
}
