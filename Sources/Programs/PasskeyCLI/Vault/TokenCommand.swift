import AgentProtocol
import ArgumentParser
import FoundationEssentials
import StandardError

/// `passkey token …`: OAuth/OIDC tokens kept in the vault, refreshed by the agent.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Store OAuth/OIDC tokens in the vault and get fresh access tokens.",
        discussion: """
        Tokens are kept per account (a name you choose) in the vault. `token get` returns \
        the stored access token while it stays valid for --min-valid seconds, else the \
        agent refreshes it at the token endpoint (once, however many ask at the same time) \
        and saves a rotated refresh token before handing out the new access token.
        """,
        subcommands: [TokenGet.self, TokenPut.self, TokenList.self, TokenRemove.self])
}

struct TokenPut: Verb {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Store ACCOUNT's tokens: an OAuth token response (JSON) on standard input.",
        discussion: """
        Standard input holds one JSON object: the token endpoint's answer (access_token, \
        token_type, expires_in, refresh_token, id_token, scope) plus issuer, client_id \
        and token_endpoint, which the agent needs to refresh it. Tokens stored before for \
        ACCOUNT are replaced. Tokens are never taken from arguments, where `ps` shows them.

        Example:
          jq '. + {issuer: "https://id.example.org", client_id: "cli", token_endpoint: "https://id.example.org/oauth2/token"}' \\
            response.json | passkey token put work
        """)

    @Argument(help: "The account name.", completion: AccountNameCompletion.kind)
    var account: String
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let input = StandardInput.readAll()
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: Data(input))
        } catch {
            throw AgentError(.invalidInput, "standard input is not JSON: it should hold the token response object")
        }
        guard case .object = document else {
            throw AgentError(.invalidInput, "standard input should hold one JSON object (the token response)")
        }
        let summary = try await LockedVault.retryingAfterUnlock(backend) { () throws(AgentError) in
            try await backend.call(TokenPutMethod.self, .init(account: account, token: document),
                                   interaction: TerminalInteraction(pins: .interactive))
        }
        if runOptions.json { Output.json(summary); return }
        var line = "Stored the tokens of \"\(summary.account)\" (\(summary.issuer)"
        if let subject = summary.subject { line += ", subject \(subject)" }
        line += ")"
        if !summary.hasRefreshToken { line += "; there is no refresh token, so it cannot be refreshed" }
        Output.line(line + ".")
    }
}

struct TokenList: Verb {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the stored accounts: issuer, subject, expiry. Never a token.",
        discussion: """
        Subjects come from the ID token's claims, decoded for display without checking its signature. \
        An account whose tokens cannot be read is listed as such (`passkey token rm ACCOUNT` removes it), \
        and a damaged entry is named by its file on standard error. With no vault yet the list is \
        empty and the exit status 0, as `passkey vault status` says. While the vault is locked, \
        the accounts made by `passkey login` are listed from their settings (issuer, subject; \
        no expiry), with exit status 0.
        """)

    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let list = try await LockedVault.retryingAfterUnlock(backend) { () throws(AgentError) in
            try await backend.call(TokenListMethod.self, NoParams(), interaction: TerminalInteraction(pins: .interactive))
        }
        if runOptions.json { Output.json(list); return }
        if list.noVault == true {
            Output.line("There is no vault yet, so no tokens are stored: `passkey vault init` creates it.")
            return
        }
        if list.locked == true {
            let rows = (list.lockedAccounts ?? []).map { [$0.account, $0.issuer, $0.login.subject ?? "-", "(locked)"] }
            if !rows.isEmpty { TableOutput.print(header: ["ACCOUNT", "ISSUER", "SUBJECT", "EXPIRES"], rows: rows) }
            StandardError.writeLine("passkey: the vault is locked: expiry times, and accounts stored with `passkey token put`, "
                                    + "show after `passkey unlock`.")
            return
        }
        let unreadable = list.unreadableAccounts ?? []
        if list.tokens.isEmpty && list.damaged.isEmpty {
            Output.line("No tokens are stored. Add some with `passkey token put ACCOUNT`.")
        }
        let now = Int64(Date().timeIntervalSince1970)
        // An entry whose tokens cannot be read is listed by its account, so `token rm ACCOUNT` can remove it.
        let rows = (list.tokens.map { [$0.account, $0.issuer, $0.subject ?? "-", Self.expiry($0.expiresAt, now: now)] }
                    + unreadable.map { [$0, "(cannot be read)", "-", "-"] }).sorted { $0[0] < $1[0] }
        TableOutput.print(header: ["ACCOUNT", "ISSUER", "SUBJECT", "EXPIRES"], rows: rows)
        for problem in list.damaged { StandardError.writeLine("passkey: \(problem)") }
    }

    /// "2025-05-01T12:00:00Z (in 59 min)" or "… (expired 2 h ago)".
    static func expiry(_ expiresAt: Int64?, now: Int64) -> String {
        guard let expiresAt else { return "unknown" }
        // Year 10000 and beyond (or before year 0) has no ISO 8601 form worth printing.
        let printable: ClosedRange<Int64> = -62_167_219_200...253_402_300_799
        let stamp = printable.contains(expiresAt)
            ? Date(timeIntervalSince1970: TimeInterval(expiresAt)).formatted(.iso8601)
            : (expiresAt > 0 ? "never (year 10000 or later)" : "long ago")
        // expiresAt comes from the agent: saturate instead of trapping near Int64's ends.
        let (difference, overflow) = expiresAt.subtractingReportingOverflow(now)
        let delta = overflow ? (expiresAt < 0 ? Int64.min : Int64.max) : difference
        let distance = delta.magnitude
        let span = distance < 3600 ? "\(distance / 60) min" : distance < 172_800 ? "\(distance / 3600) h" : "\(distance / 86_400) days"
        return "\(stamp) (\(delta >= 0 ? "in \(span)" : "expired \(span) ago"))"
    }
}

struct TokenRemove: Verb {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Forget ACCOUNT's tokens.",
        discussion: "It works on an entry that cannot be read or decrypted too: only its name is needed.")

    @Argument(help: "The account name.", completion: AccountNameCompletion.kind)
    var account: String
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let result = try await LockedVault.retryingAfterUnlock(backend) { () throws(AgentError) in
            try await backend.call(TokenDeleteMethod.self, .init(account: account), interaction: TerminalInteraction(pins: .interactive))
        }
        if runOptions.json { Output.json(result); return }
        Output.line("Removed the tokens of \"\(account)\".")
    }
}
