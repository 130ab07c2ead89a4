import AgentProtocol

/// How a command that hands a token to another program may ask the person
/// (to unlock the vault, for a PIN, for a touch).
enum Prompting: Equatable {
    /// As every verb: the terminal on stdin and stderr, else pinentry.
    case terminal
    /// Only on /dev/tty: credential helpers, whose stdin and stdout belong to the tool.
    case controllingTerminal
    /// Never (kubectl's `spec.interactive: false`): a locked vault is an error at once.
    case never
}

/// An access token from the agent (or the in-process core) for a program
/// that is not a shell: `passkey exec` and the credential helpers. The same
/// `token.get` call as `passkey token get`, so the same refresh rules.
enum FreshToken {
    static func get(account: String, minValid: Int, prompting: Prompting,
                    on backend: Backend) async throws(AgentError) -> AccessTokenResult {
        guard minValid >= 0 else { throw AgentError(.invalidInput, "--min-valid is a number of seconds, 0 or more") }
        let params = TokenGetMethod.Params(account: account, minValid: minValid)
        switch prompting {
        case .terminal:
            return try await LockedVault.retryingAfterUnlock(backend) { () throws(AgentError) in
                try await backend.call(TokenGetMethod.self, params, interaction: TerminalInteraction(pins: .interactive))
            }
        case .controllingTerminal, .never:
            let interaction = ControllingTerminalInteraction(allowed: prompting == .controllingTerminal)
            do {
                return try await backend.call(TokenGetMethod.self, params, interaction: interaction)
            } catch where error.kind == .locked && interaction.canAsk {
                guard let answer = TerminalPrompt.ask("passkey: the vault is locked (a token for \"\(account)\" is asked for). Unlock it now? [y/N] "),
                      answer.lowercased().hasPrefix("y") else { throw error }
                _ = try await backend.call(AgentUnlockMethod.self, VaultSlotParams(interactive: true), interaction: interaction)
                return try await backend.call(TokenGetMethod.self, params, interaction: interaction)
            }
        }
    }
}
