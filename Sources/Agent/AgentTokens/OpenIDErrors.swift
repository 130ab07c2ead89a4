import AgentProtocol
import AgentRuntime
import OpenID

/// Login failures as the protocol's error kinds. A script branches on
/// `errorCode` (the OAuth code, or ours for a check that failed:
/// `state_mismatch`, `iss_mismatch`, `invalid_id_token`).
extension AgentError {
    package init(openID error: OpenIDError) {
        let message = error.description
        switch error {
        case .invalidIssuer, .malformedRedirect, .missingCode:
            self.init(.invalidInput, message)
        case .stateMismatch:
            // A pasted address of another login: the person can paste the right one.
            self.init(.invalidInput, message, details: ["errorCode": .string("state_mismatch")])
        case .issuerMismatch, .missingIssuer:
            self.init(.serverError, message, details: ["errorCode": .string("iss_mismatch")])
        case .idToken:
            self.init(.serverError, message, details: ["errorCode": .string("invalid_id_token")])
        case .discovery, .discoveryIssuerMismatch, .jwks, .malformedResponse:
            self.init(.serverError, message)
        case .authorizationRefused, .invalidGrant, .tokenEndpoint, .revocationFailed, .deviceAuthorizationFailed,
             .deviceAccessDenied:
            self.init(.serverError, message, details: error.errorCode.map { ["errorCode": .string($0)] } ?? [:])
        case .deviceCodeExpired:
            self.init(.timeout, message, details: ["errorCode": .string("expired_token")])
        case .network:
            self.init(.networkError, message)
        case .noDeviceEndpoint, .noRevocationEndpoint:
            self.init(.unsupported, message)
        case .listener:
            self.init(.networkError, message)
        case .cancelled:
            self.init(.cancelled, message)
        }
    }
}

extension OpenIDError: AgentErrorMapping {
    package var agentError: AgentError { AgentError(openID: self) }
}

/// A login request OpenID's rules refused: the person's input, except a
/// device flow the provider does not offer.
extension LoginRequestError: AgentErrorMapping {
    package var agentError: AgentError {
        switch self {
        case .scopeCount, .scope, .extraCount, .extraParameter, .reservedParameter, .notPrivateUseRedirect, .privateUseRedirectForm,
             .clientSecret, .endpointForm, .unusableEndpoint, .deviceFlowRouted:
            return AgentError(.invalidInput, description)
        case .noDeviceAuthorizationEndpoint:
            return AgentError(.unsupported, description)
        }
    }
}
