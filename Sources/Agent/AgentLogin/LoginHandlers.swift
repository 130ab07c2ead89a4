import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import OpenID
import Settings
import Tokens
import Vault

/// The `login.*` methods: begin (LoginBegin.swift), wait, complete (a
/// pasted redirect), cancel, and logout (RFC 7009 revocation, then removal).
extension LoginCapability {
    package func registerLogin(into table: inout MethodTable.Builder) {
        // Registered once, as the core starts (in the agent, or in a `passkey`
        // running the core itself): the launch pages a dead process left go.
        if let directory = LaunchPage.directory(paths) { LaunchPage.removeStale(in: directory) }
        table.register(LoginBeginMethod.self) { params, interaction in
            try await self.beginLogin(params, interaction: interaction)
        }
        table.register(LoginIDXProceedMethod.self) { params, interaction in
            try await self.proceedIDX(params, interaction: interaction)
        }
        table.register(LoginWaitMethod.self) { params, _ in
            let seconds = params.seconds ?? 50
            guard (1...120).contains(seconds) else { throw AgentError(.invalidParams, "`seconds` is 1 to 120") }
            let login = try await self.pendingLogin(params.account).result(waitingAtMost: .seconds(seconds))
            return LoginWaitResult(done: login != nil, login: login)
        }
        table.register(LoginCompleteMethod.self) { params, _ in
            guard params.redirectURL.utf8.count <= 8192 else {
                throw AgentError(.invalidInput, "the pasted redirect URL is longer than 8192 bytes")
            }
            try self.pendingLogin(params.account).paste(params.redirectURL)
            return LoginCompleted(account: params.account, accepted: true)
        }
        table.register(LoginCancelMethod.self) { params, _ in
            try TokensCapability.checkAccount(params.account)
            if let login = self.logins.idxLogin(for: params.account) {
                await self.cancelIDX(login)
                return LoginCompleted(account: params.account, accepted: true)
            }
            let login = try self.pendingLogin(params.account)
            login.cancel()
            self.logins.remove(login)
            return LoginCompleted(account: params.account, accepted: true)
        }
        table.register(LogoutMethod.self) { params, _ in
            try await self.logout(params)
        }
    }

    private func pendingLogin(_ account: String) throws(AgentError) -> PendingLogin {
        try TokensCapability.checkAccount(account)
        guard let login = logins.login(for: account) else {
            throw AgentError(.notFound, "no login of \"\(account)\" is in progress: start one with `passkey login \(account)`")
        }
        return login
    }

    /// Revokes the refresh token (which at most providers ends its access
    /// tokens too), then the access token, then removes the account's vault
    /// entry and settings. A provider that cannot revoke is reported, never
    /// silently skipped; with `noRevoke` the provider is not contacted.
    private func logout(_ params: LogoutMethod.Params) async throws -> LogoutResult {
        let account = params.account
        try TokensCapability.checkAccount(account)
        let tokens = try await vault.withUnlocked { open in try TokensCapability.read(account, from: open) }
        var revoked: [String] = []
        var problem: String?
        if params.noRevoke == true {
            problem = "not revoked (--no-revoke): the tokens stay valid at \(tokens.issuer) until they expire"
        } else {
            let provider = openIDProvider(tokens.issuer)
            // A revocation endpoint given at login (the provider advertises none) is used as then.
            var metadata = try await provider.metadata()
            if let saved = try? accounts.load(account), saved.issuer == tokens.issuer,
               let given = try LoginRequestRules.checkEndpoint(saved.revocationEndpoint, option: "revocation_endpoint in the account's settings") {
                metadata.revocationEndpoint = given
            }
            let client = OpenIDClient(transport: http, metadata: metadata, clientId: tokens.clientId,
                                      clientSecret: tokens.clientSecret)
            do throws(OpenIDError) {
                if let refreshToken = tokens.refreshToken {
                    try await client.revoke(refreshToken, hint: .refreshToken)
                    revoked.append(TokenTypeHint.refreshToken.rawValue)
                }
                try await client.revoke(tokens.accessToken, hint: .accessToken)
                revoked.append(TokenTypeHint.accessToken.rawValue)
            } catch .noRevocationEndpoint {
                problem = "\(tokens.issuer) has no revocation endpoint: the tokens stay valid there until they expire"
            }
        }
        guard params.keep != true else {
            return LogoutResult(account: account, revoked: revoked, revocationProblem: problem, removed: false)
        }
        try await vault.withUnlocked { open in
            try await self.tokens.accountLocks.withLock(account) {
                do throws(VaultError) {
                    try open.remove(TokensCapability.entryName(account))
                } catch .entryNotFound {}
            }
        }
        try accounts.remove(account)
        return LogoutResult(account: account, revoked: revoked, revocationProblem: problem, removed: true)
    }
}
