import VirtualAuthenticator

/// The FIDO2 applet's state as the `fido2` member of the card's memory
/// (its state file), for the CTAP engine.
final class CardAuthenticatorStore: AuthenticatorStateStore, Sendable {
    private let memory: CardMemory

    init(memory: CardMemory) { self.memory = memory }

    /// The state file's path, or a phrase for a card in memory.
    var filePath: String { memory.file?.path ?? "(the card's memory)" }

    var stateLocation: String { filePath + ", member fido2" }

    func loadAuthenticatorState() -> AuthenticatorStateDocument? { memory.fido2 }

    func saveAuthenticatorState(_ document: AuthenticatorStateDocument) throws(VirtualAuthenticatorError) {
        do {
            try memory.update { $0.fido2 = document }
        } catch {
            if case .stateFile(_, let reason) = error { throw .stateNotWritable(path: filePath, reason: reason) }
            throw .stateNotWritable(path: filePath, reason: error.description)
        }
    }
}
