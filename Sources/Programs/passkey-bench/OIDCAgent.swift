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

    let directory: String
    let socketPath: String
    /// What `oidc-token` needs to find this agent (and only this one).
    let environment: [String: String]
    private let process: RunningProcess

    init(oidcAgent: String, oidcGen: String, account: Account) throws(BenchError) {
        let directory = try BenchError.during("making a directory for oidc-agent") {
            try TemporaryDirectory.make(prefix: "passkey-bench-oidc")
        }
        self.directory = directory
        let socketPath = directory + "/oidc-agent.sock"
        self.socketPath = socketPath
        var environment = ProcessEnvironment.current
        environment["HOME"] = directory
        environment["OIDC_SOCK"] = socketPath
        self.environment = environment
        do throws(HarnessError) {
            // -d: the console, no fork, so SIGTERM reaches it; --no-autoload: never a prompt.
            process = try RunningProcess(oidcAgent, ["-d", "-a", socketPath, "--no-autoload", "--quiet"],
                                         environment: environment, directory: directory, name: "oidc-agent")
        } catch {
            TemporaryDirectory.remove(directory)
            throw .stepFailed("starting oidc-agent", reason: error.description)
        }
        do throws(BenchError) {
            try BenchError.during("starting oidc-agent") {
                try process.waitUntil("oidc-agent listens on \(socketPath)", timeout: 15) { (try? LineClient(path: socketPath)) != nil }
            }
            try importAccount(account, oidcGen: oidcGen)
        } catch {
            stop()
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

    func stop() {
        process.stop()
        TemporaryDirectory.remove(directory)
    }
}
