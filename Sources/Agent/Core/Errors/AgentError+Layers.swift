import AgentProtocol
import BeyondIdentity
import FIDO
import HTTPTransport
import OpenID
import Passwordless
import PIV
import Settings
import SmartCard
import Tokens
import Vault
import VirtualAuthenticator
import WebAuthn
import WebAuthnClient

/// Every layer's error, turned into the one error the socket and the CLI
/// speak: the one place that does it (one file per source layer beside this
/// one). Each layer's messages are already one clear line without secrets;
/// this adds the machine-readable kind and facts such as `triesLeft`.
/// `MethodTable` applies it to whatever a handler throws.
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
        case let error as VaultError: self.init(vault: error)
        case let error as TokenError: self.init(token: error)
        case let error as OpenIDError: self.init(openID: error)
        case let error as InvokeError: self.init(invoke: error)
        case let error as AccountSettingsError: self.init(.invalidInput, error.description)
        case let error as SettingsError: self.init(.invalidInput, error.description)
        case let error as VirtualAuthenticatorError: self.init(.deviceUnavailable, error.description)
        case let error as WebAuthnError: self.init(.invalidInput, error.description)
        case is CancellationError: self.init(.cancelled, "the request was cancelled")
        default: self.init(.internal, "unexpected error: \(error)")
        }
    }
}
