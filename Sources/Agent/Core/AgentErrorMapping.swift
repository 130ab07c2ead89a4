import AgentProtocol
import Passwordless
import HTTPTransport
import PIV
import SmartCard
import FIDO
import VirtualAuthenticator
import WebAuthn
import WebAuthnClient

/// Every layer's error, turned into the one error the socket and the CLI
/// speak. Each layer's messages are already one clear line without secrets;
/// this adds the machine-readable kind and facts such as `triesLeft`.
extension AgentError {
    public init(_ error: any Error) {
        switch error {
        case let error as AgentError: self = error
        case let error as FIDOError: self.init(fido: error)
        case let error as CeremonyError: self.init(ceremony: error)
        case let error as PasswordlessError: self.init(passwordless: error)
        case let error as HTTPTransportError: self.init(transport: error)
        case let error as PIVError: self.init(piv: error)
        case let error as SmartCardError: self.init(smartCard: error)
        case let error as VirtualAuthenticatorError: self.init(.deviceUnavailable, error.description)
        case let error as WebAuthnError: self.init(.invalidInput, error.description)
        case is CancellationError: self.init(.cancelled, "the request was cancelled")
        default: self.init(.internal, "unexpected error: \(error)")
        }
    }

    init(fido error: FIDOError) {
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
        case .userActionTimeout: self.init(.timeout, message)
        case .cancelled: self.init(.cancelled, message)
        case .credentialExcluded: self.init(.alreadyRegistered, message)
        case .noCredentials: self.init(.noCredentials, message)
        case .unsupportedAlgorithm, .unsupportedOption, .keyStoreFull: self.init(.unsupported, message)
        case .invalidArgument: self.init(.invalidInput, message)
        case .other: self.init(.deviceUnavailable, message)
        }
    }

    init(passwordless error: PasswordlessError) {
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

    init(transport error: HTTPTransportError) {
        self.init(.networkError, error.description)
    }

    init(ceremony error: CeremonyError) {
        switch error {
        case .authenticator(let fido): self.init(fido: fido)
        case .invalidOptions, .originNotAllowed: self.init(.invalidInput, error.description)
        case .noSuchAccount(_, let available):
            self.init(.notFound, error.description, details: ["accounts": .array(available.map { .string($0) })])
        case .cancelled: self.init(.cancelled, error.description)
        }
    }
}
