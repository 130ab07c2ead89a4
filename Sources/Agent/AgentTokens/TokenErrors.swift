import AgentProtocol
import AgentRuntime
import Tokens

/// Token failures as the protocol's error kinds, with the facts a script
/// branches on (`errorCode`, `reloginRequired`, `status`).
extension AgentError {
    package init(token error: TokenError) {
        let message = error.description
        switch error {
        case .invalidInput:
            self.init(.invalidInput, message)
        case .noRefreshToken:
            // OpenID Connect's name for "the user must sign in again".
            self.init(.serverError, message, details: ["errorCode": .string("login_required"), "reloginRequired": .bool(true)])
        case .invalidGrant:
            self.init(.serverError, message, details: ["errorCode": .string("invalid_grant"), "reloginRequired": .bool(true)])
        case .server(_, let status, let code, _):
            var details: [String: JSONValue] = ["status": .number(Double(status))]
            if let code { details["errorCode"] = .string(code) }
            self.init(.serverError, message, details: details)
        case .malformedResponse:
            self.init(.serverError, message)
        case .network:
            self.init(.networkError, message)
        case .damagedTokenSet:
            self.init(.vaultError, message)
        }
    }
}

extension TokenError: AgentErrorMapping {
    package var agentError: AgentError { AgentError(token: self) }
}
