import AgentProtocol
import ArgumentParser
import Settings
import StandardError

/// `passkey exec ACCOUNT -- COMMAND…`: COMMAND with a fresh access token in
/// its environment, never on any argv (/proc/PID/cmdline is world-readable;
/// /proc/PID/environ is readable only by its owner and root).
struct ExecCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run COMMAND with a fresh access token of ACCOUNT in its environment.",
        discussion: """
        The token is in PASSKEY_ACCESS_TOKEN (or the variable --env names), its expiry \
        (seconds since 1970, when known) in PASSKEY_TOKEN_EXPIRES_AT, and the agent's \
        socket in PASSKEY_AGENT_SOCK, so that a long-running COMMAND can ask again with \
        `passkey token get ACCOUNT`. passkey then becomes COMMAND (no shell reads its \
        words; PATH is searched as a shell does): the exit status is COMMAND's own, and a \
        shell shows a death by signal N as 128+N. When COMMAND cannot be run the status \
        is 127 (not found) or 126 (not runnable); when no token can be had, passkey's \
        own status (a line starting `passkey:` says why) and COMMAND does not run.

        Examples (programs that read their token from the environment):
          passkey exec work --env GH_TOKEN -- gh api user
          passkey exec work -- ./sync-calendar.py
        """)

    @Argument(help: "The account name.", completion: AccountNameCompletion.kind)
    var account: String
    @Option(help: "The variable that holds the token.")
    var env: String = "PASSKEY_ACCESS_TOKEN"
    @Option(name: .long, help: "Seconds the token must stay valid when COMMAND starts.")
    var minValid: Int = TokenGetMethod.defaultMinValid
    @Argument(parsing: .postTerminator, help: "The command and its arguments, after `--`.")
    var command: [String] = []
    @OptionGroup var runOptions: RunOptions

    func validate() throws {
        guard !command.isEmpty else { throw ValidationError("give the command after `--`: passkey exec \(account) -- COMMAND…") }
        guard Self.isVariableName(env) else {
            throw ValidationError("--env takes a variable name (letters, digits and `_`, not starting with a digit)")
        }
        guard !Self.reserved.contains(env) else { throw ValidationError("--env cannot be \(env): passkey sets that one itself") }
    }

    /// The variables exec sets beside the token's.
    static let reserved: Set<String> = ["PASSKEY_AGENT_SOCK", "PASSKEY_TOKEN_EXPIRES_AT"]

    /// A POSIX shell variable name, at most 255 bytes.
    static func isVariableName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count < 256, !(48...57).contains(first) else { return false }
        return bytes.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 95 }
    }

    func execute(on backend: Backend) async throws(AgentError) {
        let token = try await FreshToken.get(account: account, minValid: minValid, prompting: .terminal, on: backend)
        var environment = ProcessEnvironment.snapshot()
        environment[env] = token.accessToken
        environment["PASSKEY_TOKEN_EXPIRES_AT"] = token.expiresAt.map(String.init)
        if case .agent = backend, let socket = AgentPaths(environment: environment).socket {
            environment["PASSKEY_AGENT_SOCK"] = socket
        }
        let (error, status) = ProgramReplacement.exec(command, environment: environment)
        // Only reached when COMMAND could not be run: the shell's statuses, not ours.
        if runOptions.json {
            Output.jsonError(kind: error.kind.rawValue, message: error.message)
        } else {
            StandardError.writeLine("passkey: \(error.message)")
        }
        Self.exit(withError: ExitCode(status))
    }
}
