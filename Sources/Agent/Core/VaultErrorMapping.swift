import AgentProtocol
import Tokens
import Vault

/// Vault and token failures as the socket's (and the CLI's) error kinds.
/// The messages are the layers' own one-liners; this adds the kind and
/// facts a script branches on (`triesLeft`, `errorCode`, `reloginRequired`).
extension AgentError {
    init(vault error: VaultError) {
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

    init(token error: TokenError) {
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

    /// Any error of the vault's handlers: vault and token errors mapped here,
    /// the rest as every handler maps them.
    init(vaultHandler error: any Error) {
        switch error {
        case let error as VaultError: self.init(vault: error)
        case let error as TokenError: self.init(token: error)
        default: self.init(error)
        }
    }
}
