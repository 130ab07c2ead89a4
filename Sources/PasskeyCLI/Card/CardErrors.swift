import AgentProtocol
import PIV
import SmartCard

/// Card failures as the CLI's (and the agent's) error kinds, so exit statuses
/// and `--json` errors match every other verb. Tries left travel in
/// `details.triesLeft`.
enum CardErrors {
    static func agentError(_ error: PIVError) -> AgentError {
        switch error {
        case .smartCard(let cardError):
            return agentError(cardError)
        case .notPIVCard, .unsupportedKey:
            return AgentError(.unsupported, error.description)
        case .invalidSecret, .invalidManagementKey:
            return AgentError(.invalidInput, error.description)
        case .wrongPIN(let tries), .wrongPUK(let tries):
            return AgentError(.pinInvalid, error.description, details: ["triesLeft": .number(Double(tries))])
        case .pinBlocked, .pukBlocked:
            return AgentError(.pinBlocked, error.description, details: ["triesLeft": .number(0)])
        case .pinRequired, .pinRequiredToRead:
            return AgentError(.pinRequired, error.description)
        case .noKey:
            return AgentError(.notFound, error.description)
        case .keyExists:
            return AgentError(.alreadyRegistered, error.description)
        case .cardNotFound:
            return AgentError(.noCard, error.description)
        case .severalCards:
            return AgentError(.userSelectionRequired, error.description)
        case .managementKeyRequired, .managementKeyRejected, .cardNotAuthenticated, .cardRejected,
             .malformedResponse, .certificate:
            return AgentError(.cardError, error.description)
        }
    }

    static func agentError(_ error: SmartCardError) -> AgentError {
        switch error {
        case .serviceNotRunning:
            return AgentError(.pcscUnavailable, error.description)
        case .noReaders, .readerNotFound, .noCard:
            return AgentError(.noCard, error.description)
        case .cardRemoved, .cardUnresponsive, .connectionClosed:
            return AgentError(.deviceUnavailable, error.description)
        case .sharingViolation:
            return AgentError(.deviceBusy, error.description)
        case .timedOut:
            return AgentError(.timeout, error.description)
        case .cancelled:
            return AgentError(.cancelled, error.description)
        case .cardReset, .malformedResponse, .invalidCommand, .pcsc:
            return AgentError(.cardError, error.description)
        }
    }
}
