import AgentProtocol
import AgentRuntime
import PIV
import SmartCard

/// Card failures (the PIV client's and pcsc-lite's) as the protocol's error
/// kinds, so exit statuses and JSON errors match every other verb. Tries
/// left travel in `triesLeft`.
extension AgentError {
    package init(piv error: PIVError) {
        switch error {
        case .smartCard(let cardError):
            self.init(smartCard: cardError)
        case .notPIVCard, .unsupportedKey:
            self.init(.unsupported, error.description)
        case .invalidSecret, .invalidManagementKey:
            self.init(.invalidInput, error.description)
        case .wrongPIN(let tries), .wrongPUK(let tries):
            self.init(.pinInvalid, error.description, details: ["triesLeft": .number(Double(tries))])
        case .pinBlocked:
            self = .cardBlocked(.pin)
        case .pukBlocked:
            self = .cardBlocked(.puk)
        case .pinRequired, .pinRequiredToRead:
            self.init(.pinRequired, error.description)
        case .noKey:
            self.init(.notFound, error.description)
        case .keyExists:
            self.init(.alreadyRegistered, error.description)
        case .cardNotFound:
            self.init(.noCard, error.description)
        case .severalCards:
            self.init(.userSelectionRequired, error.description)
        case .managementKeyRequired, .managementKeyRejected, .cardNotAuthenticated, .cardRejected,
             .malformedResponse, .certificate:
            self.init(.cardError, error.description)
        }
    }

    package init(smartCard error: SmartCardError) {
        switch error {
        case .serviceNotRunning: self.init(.pcscUnavailable, error.description)
        case .noReaders, .readerNotFound, .noCard: self.init(.noCard, error.description)
        case .cardRemoved, .cardUnresponsive, .connectionClosed: self.init(.deviceUnavailable, error.description)
        case .sharingViolation: self.init(.deviceBusy, error.description)
        case .timedOut: self.init(.timeout, error.description)
        case .cancelled: self.init(.cancelled, error.description)
        case .cardReset, .malformedResponse, .invalidCommand, .pcsc: self.init(.cardError, error.description)
        }
    }
}

extension PIVError: AgentErrorMapping {
    package var agentError: AgentError { AgentError(piv: self) }
}

extension SmartCardError: AgentErrorMapping {
    package var agentError: AgentError { AgentError(smartCard: self) }
}
