import AgentProtocol
import ArgumentParser

/// `passkey token get ACCOUNT`: the one verb that prints a token.
struct TokenGet: Verb {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print an access token for ACCOUNT (only the token, for `$(passkey token get work)`).",
        discussion: """
        When the vault is locked: on a terminal you are offered to unlock it; otherwise \
        the command fails (exit status 7). When the refresh token is refused \
        (invalid_grant) the stored tokens are kept and the error says to sign in again.
        """)

    @Argument(help: "The account name.")
    var account: String
    /// What `--min-valid` is when not given (ScriptedForm reads the same).
    static let defaultMinValid = 60

    @Option(name: .long, help: "Seconds the token must stay valid (default 60).")
    var minValid: Int = Self.defaultMinValid
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        try await Self.printToken(account: account, minValid: minValid, on: backend, json: runOptions.json)
    }

    /// The verb itself, also run by ScriptedForm (which reads `passkey token
    /// get ACCOUNT` without ArgumentParser, so it never builds this command's properties).
    static func printToken(account: String, minValid: Int, on backend: Backend, json: Bool) async throws(AgentError) {
        guard minValid >= 0 else { throw AgentError(.invalidInput, "--min-valid is a number of seconds, 0 or more") }
        let result = try await LockedVault.retryingAfterUnlock(backend) { () throws(AgentError) in
            try await backend.call(TokenGetMethod.self, .init(account: account, minValid: minValid),
                                   interaction: TerminalInteraction(pins: .interactive))
        }
        if json { Output.json(result); return }
        Output.line(result.accessToken)
    }
}
