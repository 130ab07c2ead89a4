import AgentProtocol
import AgentRuntime
import FIDO
import VirtualAuthenticator
import WebAuthn
import WebAuthnClient

/// A security key's failures (libfido2's statuses, as FIDOError), the
/// WebAuthn client's, the virtual authenticator's set-up and WebAuthn
/// structures that do not parse, as the protocol's error kinds. Tries left travel in
/// `triesLeft`.
extension AgentError {
    package init(fido error: FIDOError) {
        let message = error.description
        switch error {
        case .noDevice: self.init(.noDevice, message)
        case .deviceUnavailable, .deviceIO: self.init(.deviceUnavailable, message)
        case .pinRequired: self.init(.pinRequired, message)
        case .pinInvalid(let left):
            self.init(.pinInvalid, message, details: left.map { ["triesLeft": .number(Double($0))] } ?? [:])
        case .pinAuthBlocked: self.init(.pinAuthBlocked, message)
        case .pinBlocked: self.init(.pinBlocked, message)
        case .pinNotSet: self.init(.pinNotSet, message)
        case .pinPolicyViolation: self.init(.pinPolicy, message)
        case .userVerificationFailed(let left):
            self.init(.uvFailed, message, details: left.map { ["triesLeft": .number(Double($0))] } ?? [:])
        case .userVerificationBlocked: self.init(.uvFailed, message)
        case .operationDenied: self.init(.denied, message)
        case .resetNotAllowed: self.init(.denied, message)
        case .userActionTimeout: self.init(.timeout, message)
        case .cancelled: self.init(.cancelled, message)
        case .credentialExcluded: self.init(.alreadyRegistered, message)
        case .noCredentials: self.init(.noCredentials, message)
        case .unsupportedAlgorithm, .unsupportedOption, .keyStoreFull: self.init(.unsupported, message)
        case .invalidArgument: self.init(.invalidInput, message)
        case .other: self.init(.deviceUnavailable, message)
        }
    }

    package init(ceremony error: CeremonyError) {
        switch error {
        case .authenticator(let fido): self.init(fido: fido)
        case .invalidOptions, .originNotAllowed: self.init(.invalidInput, error.description)
        case .noSuchAccount(_, let available):
            self.init(.notFound, error.description, details: ["accounts": .array(available.map { .string($0) })])
        case .cancelled: self.init(.cancelled, error.description)
        }
    }
}

extension FIDOError: AgentErrorMapping {
    package var agentError: AgentError { AgentError(fido: self) }
}

extension CeremonyError: AgentErrorMapping {
    package var agentError: AgentError { AgentError(ceremony: self) }
}

extension VirtualAuthenticatorError: AgentErrorMapping {
    package var agentError: AgentError {
        switch self {
        case .stateUnreadable, .stateCorrupt, .stateFormatUnsupported, .stateNotWritable, .invalidPolicy, .invalidConfiguration:
            return AgentError(.deviceUnavailable, description)
        }
    }
}

extension WebAuthnError: AgentErrorMapping {
    package var agentError: AgentError {
        switch self {
        case .malformed, .unsupportedAlgorithm, .verificationFailed:
            return AgentError(.invalidInput, description)
        }
    }
}
