import AgentProtocol
import AgentRuntime
import HTTPTransport
import Passwordless

/// passwordless.dev's answers (problem details keep their `errorCode` and
/// `title`) and the HTTP client's failures as the protocol's error kinds.
extension AgentError {
    package init(passwordless error: PasswordlessError) {
        switch error {
        case .missingSetting: self.init(.invalidInput, error.description)
        case .server(let problem):
            var details: [String: JSONValue] = ["status": .number(Double(problem.status))]
            if let code = problem.errorCode { details["errorCode"] = .string(code) }
            if let title = problem.title { details["title"] = .string(title) }
            self.init(.serverError, error.description, details: details)
        case .transport(let transport): self.init(transport: transport)
        case .malformedResponse: self.init(.serverError, error.description)
        case .ceremony(let ceremony): self.init(ceremony: ceremony)
        }
    }

    package init(transport error: HTTPTransportError) {
        switch error {
        case .invalidURL, .connectTimeout, .requestTimeout, .connectionFailed, .responseTooLarge:
            self.init(.networkError, error.description)
        }
    }
}

extension PasswordlessError: AgentErrorMapping {
    package var agentError: AgentError { AgentError(passwordless: self) }
}

extension HTTPTransportError: AgentErrorMapping {
    package var agentError: AgentError { AgentError(transport: self) }
}
