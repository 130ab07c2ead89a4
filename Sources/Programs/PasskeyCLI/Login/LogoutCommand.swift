import AgentProtocol
import ArgumentParser
import StandardError

/// `passkey logout ACCOUNT`: revoke at the provider (RFC 7009), then forget.
struct LogoutCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Revoke ACCOUNT's tokens at the provider, then remove them and the account's login settings.",
        discussion: """
        The refresh token is revoked first (at most providers that ends its access tokens \
        too), then the access token. A provider without a revocation endpoint is reported: \
        its tokens stay valid there until they expire. --keep revokes but keeps the entry; \
        --no-revoke removes without contacting the provider.
        """)

    @Argument(help: "The account name.", completion: AccountNameCompletion.kind)
    var account: String
    @Flag(help: "Revoke, but keep the vault entry and the login settings.")
    var keep = false
    @Flag(help: "Remove without contacting the provider (its tokens stay valid until they expire).")
    var noRevoke = false
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let params = LogoutMethod.Params(account: account, keep: keep ? true : nil, noRevoke: noRevoke ? true : nil)
        let result = try await LockedVault.retryingAfterUnlock(backend) { () throws(AgentError) in
            try await backend.call(LogoutMethod.self, params, interaction: TerminalInteraction(pins: .interactive))
        }
        if runOptions.json { Output.json(result); return }
        if !result.revoked.isEmpty {
            Output.line("Revoked the \(result.revoked.map { $0.replacing("_", with: " ") }.joined(separator: " and ")) of \"\(account)\".")
        }
        if let problem = result.revocationProblem { StandardError.writeLine("passkey: warning: \(problem)") }
        Output.line(result.removed ? "Removed \"\(account)\" from the vault." : "Kept \"\(account)\" in the vault (--keep).")
    }
}
