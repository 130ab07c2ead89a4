import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import BeyondIdentity

/// `passkey invoke` failures as the protocol's error kinds, each with the
/// code a script (or a Beyond Identity SDK user) knows it by in `errorCode`.
extension AgentError {
    package init(invoke error: InvokeError) {
        let message = error.description
        let code = error.errorCode.map { ["errorCode": JSONValue.string($0)] } ?? [:]
        switch error {
        case .invalidURL, .malformedRequest, .stateMismatch:
            self.init(.invalidInput, message, details: code)
        case .untrustedJWKSHost, .untrustedApplication, .foreignRelyingParty, .foreignHost, .badSignature, .unknownKey, .algorithmNotAllowed, .wrongIssuer, .wrongVerb:
            // A request that fails verification is refused, never followed.
            self.init(.denied, message, details: code)
        case .requestExpired, .requestNotYetValid, .transactionExpired:
            self.init(.timeout, message, details: code)
        case .credentialNotFound:
            self.init(.noCredentials, message, details: code)
        case .policyDenied, .transactionUsed, .server, .redirectMismatch, .bindingFailed:
            self.init(.serverError, message, details: code)
        case .network:
            self.init(.networkError, message)
        case .cancelled, .notConfirmed:
            self.init(.cancelled, message, details: code)
        }
    }
}

extension InvokeError: AgentErrorMapping {
    package var agentError: AgentError { AgentError(invoke: self) }
}

/// The identity provider's redirects after a proof, followed through the
/// trusted application's hosts only.
extension RedirectChainError: AgentErrorMapping {
    package var agentError: AgentError {
        switch self {
        case .notFollowed: return AgentError(.denied, description)
        case .network: return AgentError(.networkError, description)
        case .noRedirect, .tooManyHops: return AgentError(.serverError, description)
        }
    }
}

/// A trusted application in config.toml that cannot be used.
extension InvokeTrustError: AgentErrorMapping {
    package var agentError: AgentError { AgentError(.invalidInput, description) }
}
