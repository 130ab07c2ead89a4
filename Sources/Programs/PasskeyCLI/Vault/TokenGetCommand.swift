import AgentProtocol
import ArgumentParser
import FoundationEssentials
import StandardError

/// `passkey token get ACCOUNT`: the one verb that prints a token.
struct TokenGet: Verb {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print an access token for ACCOUNT (only the token, for `$(passkey token get work)`).",
        discussion: """
        When the vault is locked: on a terminal you are offered to unlock it; otherwise \
        the command fails (exit status 7). When the refresh token is refused \
        (invalid_grant) the stored tokens are kept and the error says to sign in again \
        (`passkey login ACCOUNT` for an account made by `passkey login`). When even a \
        freshly refreshed token stays valid for less than --min-valid (the provider grants \
        no longer), it is printed all the same, with a warning on stderr.

        --format: raw (the token alone, the default), header (`Authorization: Bearer …`), \
        env (`export PASSKEY_ACCESS_TOKEN=…` lines for eval), json (as --json), \
        exec-credential (a Kubernetes ExecCredential for kubectl's `users[].user.exec`: \
        it honours KUBERNETES_EXEC_INFO, asks only on /dev/tty, and never when kubectl \
        says the call is not interactive).
        """)

    /// How the token is printed.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case raw, header, env, json
        case execCredential = "exec-credential"
    }

    @Argument(help: "The account name.", completion: AccountNameCompletion.kind)
    var account: String
    @Option(name: .long, help: "Seconds the token must stay valid (default 60).")
    var minValid: Int = TokenGetMethod.defaultMinValid
    @Option(help: "Narrow the access token to these scopes (space-separated): a refresh of its own, not stored.")
    var scope: String?
    @Flag(help: "Print the ID token instead of the access token.")
    var idToken = false
    @Option(help: "raw, header, env, json or exec-credential.")
    var format: Format = .raw
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let format = runOptions.json ? .json : format
        if format == .execCredential {
            guard scope == nil, !idToken else {
                throw AgentError(.invalidInput, "--format exec-credential hands kubectl the access token: it takes no --scope or --id-token")
            }
            return try await ExecCredential.print(account: account, minValid: minValid, on: backend)
        }
        try await Self.printToken(account: account, minValid: minValid, scope: scope, idToken: idToken,
                                  format: format, on: backend)
    }

    /// The verb itself, also run by ScriptedForm (which reads `passkey token
    /// get ACCOUNT` without ArgumentParser, so it never builds this command's properties).
    static func printToken(account: String, minValid: Int, scope: String? = nil, idToken: Bool = false,
                           format: Format, on backend: Backend) async throws(AgentError) {
        guard minValid >= 0 else { throw AgentError(.invalidInput, "--min-valid is a number of seconds, 0 or more") }
        let params = TokenGetMethod.Params(account: account, minValid: minValid, scope: scope, idToken: idToken ? true : nil)
        let result = try await LockedVault.retryingAfterUnlock(backend) { () throws(AgentError) in
            try await backend.call(TokenGetMethod.self, params, interaction: TerminalInteraction(pins: .interactive))
        }
        let token = idToken ? (result.idToken ?? "") : result.accessToken
        warnIfShortLived(result, minValid: minValid)
        switch format {
        case .json, .execCredential: Output.json(result)
        case .raw: Output.line(token)
        case .header: Output.line(idToken ? token : "Authorization: \(result.tokenType) \(token)")
        case .env:
            let name = idToken ? "PASSKEY_ID_TOKEN" : "PASSKEY_ACCESS_TOKEN"
            Output.line("\(name)=\(shellQuoted(token)); export \(name)")
            if !idToken, let expiresAt = result.expiresAt {
                Output.line("PASSKEY_TOKEN_EXPIRES_AT=\(expiresAt); export PASSKEY_TOKEN_EXPIRES_AT")
            }
        }
    }

    /// A token just refreshed that still does not stay valid for `minValid`:
    /// the provider grants no longer lifetime, so every call will refresh and
    /// still hand out a shorter-lived token. Said on stderr (the token stays
    /// alone on stdout), so a script's author learns to ask for less.
    static func warnIfShortLived(_ result: AccessTokenResult, minValid: Int) {
        guard result.refreshed, let expiresAt = result.expiresAt else { return }
        let now = Int64(Date().timeIntervalSince1970)
        let (remaining, overflow) = expiresAt.subtractingReportingOverflow(now)
        guard !overflow, remaining < Int64(clamping: minValid) else { return }
        StandardError.writeLine("passkey: warning: the provider's fresh token is valid for \(max(0, remaining)) s, less than "
                                + "--min-valid \(minValid): each call refreshes and still gets no longer; ask for less")
    }

    /// `'…'` with any `'` inside written as `'\''`: safe for `eval`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
    }
}
