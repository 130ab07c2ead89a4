import AgentProtocol
import ArgumentParser
import BuildInfo
import StandardError

#if canImport(Glibc)
import Glibc
#endif

/// `passkey credential git|docker OPERATION`: the credential helpers, also
/// installed as `git-credential-passkey` and `docker-credential-passkey`,
/// the names git and docker run (CredentialHelperProgram).
struct CredentialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credential",
        abstract: "Credential helpers: git and docker get a fresh access token from the vault.",
        discussion: """
        config.toml maps a server to the account whose token it gets:

          [credential.gitlab]
          url = "https://gitlab.example.com"   # scheme, host, port, and a path prefix if given
          account = "work"
          username = "oauth2"                  # optional (default oauth2)

          [credential.registry]
          host = "registry.example.com:5000"   # any scheme, this host and port
          account = "work"

        --account names the account instead. Questions (unlocking the vault, a PIN, a \
        touch) are asked only on the terminal (/dev/tty), never on stdout or stderr, \
        which the tool reads or hides; with no terminal a locked vault is an error.
        """,
        subcommands: [GitCredential.self, DockerCredential.self])
}

/// Options every helper takes before its operation.
struct CredentialOptions: ParsableArguments {
    @Option(help: "The account whose token is given, whatever config.toml says.", completion: AccountNameCompletion.kind)
    var account: String?
    @Option(name: .long, help: "Seconds the token must stay valid (default 60).")
    var minValid: Int = TokenGetMethod.defaultMinValid
    @Flag(help: "Never use the agent: run the core in this process.")
    var noAgent = false
}

struct GitCredential: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "git",
        abstract: "git's credential helper (gitcredentials(7)): get, store, erase.",
        discussion: """
        `get` answers username, password (the access token) and password_expiry_utc for \
        an https server (or http on this machine) that config.toml or --account maps to \
        an account, and nothing for any other, so git asks its next helper. `store` and \
        `erase` read git's description and change nothing: the token lives in the vault.

          git config --global credential.https://gitlab.example.com.helper passkey
        """)

    @OptionGroup var options: CredentialOptions
    @Argument(help: "get, store or erase (git's other operations are ignored, as gitcredentials(7) asks).")
    var operation: String

    func run() async throws {
        do {
            // The backend before standard input: with no agent this process
            // becomes passkey-local (Backend.choose), which must find the input unread.
            let backend = operation == "get" ? try Backend.choose(noAgent: options.noAgent) : nil
            // Read whatever the operation: git writes the description for
            // all of them, and a helper that leaves it unread can break its pipe.
            let values = try GitCredentialHelper.parse(CredentialInput.gitDescription())
            guard let backend else { return }
            CredentialInput.writeOut(try await GitCredentialHelper.get(values, account: options.account, minValid: options.minValid, on: backend))
        } catch {
            throw Output.fail(error, json: false)
        }
    }
}

struct DockerCredential: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docker",
        abstract: "docker's credential helper (docker-credential-helpers): get, store, erase, list, version.",
        discussion: """
        Errors are one line on stdout and status 1, as docker reads them. `store` (docker \
        login) keeps nothing: for a server config.toml maps it succeeds, for others it \
        refuses; `erase` (docker logout) leaves the vault alone.

          ~/.docker/config.json: { "credHelpers": { "registry.example.com": "passkey" } }
        """)

    @OptionGroup var options: CredentialOptions
    @Argument(help: "get, store, erase, list or version.")
    var operation: String

    func run() async throws {
        do throws(AgentError) {
            switch operation {
            case "get":
                // The backend before standard input, as for git.
                let backend = try Backend.choose(noAgent: options.noAgent)
                CredentialInput.writeOut(try await DockerCredentialHelper.get(
                    try CredentialInput.all(limit: DockerCredentialHelper.maxInput), account: options.account,
                    minValid: options.minValid, on: backend))
            case "store": try DockerCredentialHelper.store(try CredentialInput.all(limit: DockerCredentialHelper.maxInput), account: options.account)
            case "erase": try DockerCredentialHelper.erase(try CredentialInput.all(limit: DockerCredentialHelper.maxInput), account: options.account)
            case "list": CredentialInput.writeOut(try DockerCredentialHelper.list())
            case "version": CredentialInput.writeOut("docker-credential-passkey (passkey-agent) \(BuildInfo.version)\n")  // Name (Package) Version
            default: throw AgentError(.invalidInput, "Unknown credential action `\(operation)`")
            }
        } catch {
            // docker reads the error from stdout: the message alone, as credentials.go prints it.
            CredentialInput.writeOut(error.message + "\n")
            throw ExitCode(1)
        }
    }
}
