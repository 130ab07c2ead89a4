import Locking

/// Facts about the authenticator that must be readable while a request holds
/// the engine (which it does for the whole of a user-action wait).
final class Diagnostics: Sendable {
    private let lastWriteError = Locked<VirtualAuthenticatorError?>(nil)

    func recordWrite(error: VirtualAuthenticatorError?) { lastWriteError.withLock { $0 = error } }

    var lastStateWriteError: VirtualAuthenticatorError? { lastWriteError.withLock { $0 } }
}
