import AgentProtocol
import Settings

/// config.toml and an account's login settings that cannot be read or
/// written: the person's file to mend, so invalid input.
extension SettingsError: AgentErrorMapping {
    package var agentError: AgentError {
        switch self {
        case .notUTF8, .syntax, .unreadable:
            return AgentError(.invalidInput, description)
        }
    }
}

extension AccountSettingsError: AgentErrorMapping {
    package var agentError: AgentError {
        switch self {
        case .unreadable, .file, .nameTooLong:
            return AgentError(.invalidInput, description)
        }
    }
}
