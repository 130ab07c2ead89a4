import AgentProtocol
import AgentRuntime
import Vault

/// The vault's failures as the protocol's error kinds.
extension AgentError {
    package init(vault error: VaultError) {
        let message = error.description
        switch error {
        case .notInitialized, .alreadyExists, .unreadable, .notWritable, .unsafeFile, .malformedHeader, .unsupportedVersion,
             .damagedEntry, .lastSlot, .tooManySlots, .slotDoesNotOpen:
            self.init(.vaultError, message)
        case .closed:
            self.init(.locked, message)
        case .entryNotFound, .noSuchSlot, .noSlotOfKind:
            self.init(.notFound, message)
        case .invalidEntryName, .entryTooLarge:
            self.init(.invalidInput, message)
        case .pcscUnavailable:
            self.init(.pcscUnavailable, message)
        case .cardNotPresent, .noCard, .cardNotEnrolled:
            self.init(.noCard, message)
        case .cardBusy:
            self.init(.deviceBusy, message)
        case .cardHasNoKey, .card:
            self.init(.cardError, message)
        case .wrongPIN(let tries):
            self.init(.pinInvalid, message, details: ["triesLeft": .number(Double(tries))])
        case .pinBlocked:
            self.init(.pinBlocked, message, details: ["triesLeft": .number(0)])
        case .securityKey(let fido):
            self.init(fido: fido)
        case .securityKeyNotEnrolled:
            self.init(.noCredentials, message)
        case .securityKeyUnsuitable:
            self.init(.unsupported, message)
        }
    }
}

extension VaultError: AgentErrorMapping {
    package var agentError: AgentError { AgentError(vault: self) }
}
