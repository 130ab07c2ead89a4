import FoundationEssentials

/// The authenticator's persistent state as one JSON value, for a host that
/// keeps it inside a document of its own (the virtual card's state file has
/// it as its `fido2` member) instead of a state file of the authenticator's.
///
/// The value is the state file's document (`PersistedState`, with its own
/// `format` number), so both homes share one layout and one validation.
/// It holds the master secret and the credentials' private keys.
public struct AuthenticatorStateDocument: Codable, Sendable, Equatable {
    let persisted: PersistedState

    init(_ persisted: PersistedState) { self.persisted = persisted }

    public init(from decoder: any Decoder) throws { persisted = try PersistedState(from: decoder) }

    public func encode(to encoder: any Encoder) throws { try persisted.encode(to: encoder) }
}

/// A place other than its own file where an authenticator keeps its state.
///
/// Unlike `AuthenticatorStateFile`, nothing else shares it: the host owns
/// the document (and any lock on it), so the engine neither locks it nor
/// looks for changes made elsewhere. `save` must be durable when it returns;
/// if it throws, the request that changed the state fails and changes nothing.
/// Sendable: the engine that holds it is.
public protocol AuthenticatorStateStore: AnyObject, Sendable {
    /// Where the state lives, for error messages ("vcard.json, member fido2").
    var stateLocation: String { get }
    /// The stored state, or nil when there is none yet (the engine then creates and saves one).
    func loadAuthenticatorState() throws(VirtualAuthenticatorError) -> AuthenticatorStateDocument?
    /// Replaces the stored state.
    func saveAuthenticatorState(_ document: AuthenticatorStateDocument) throws(VirtualAuthenticatorError)
}

/// What the engine needs from wherever its state lives: its own shared file
/// (`AuthenticatorStateFile`) or a host's document (`HostedAuthenticatorState`).
protocol AuthenticatorStateStorage: AnyObject {
    func loadOrCreate(_ fresh: () -> AuthenticatorState) throws(VirtualAuthenticatorError) -> AuthenticatorState
    func lockExclusively() throws(VirtualAuthenticatorError)
    func unlock()
    func changedState() throws(VirtualAuthenticatorError) -> AuthenticatorState?
    func save(_ state: PersistedState) throws(VirtualAuthenticatorError)
}

extension AuthenticatorStateFile: AuthenticatorStateStorage {}

/// The engine's view of an `AuthenticatorStateStore`: no lock, no one else's changes.
final class HostedAuthenticatorState: AuthenticatorStateStorage {
    private let store: any AuthenticatorStateStore

    init(_ store: any AuthenticatorStateStore) { self.store = store }

    func loadOrCreate(_ fresh: () -> AuthenticatorState) throws(VirtualAuthenticatorError) -> AuthenticatorState {
        if let document = try store.loadAuthenticatorState() {
            return try AuthenticatorState(persisted: document.persisted, path: store.stateLocation)
        }
        let state = fresh()
        try save(state.persisted())
        return state
    }

    func lockExclusively() {}
    func unlock() {}
    func changedState() -> AuthenticatorState? { nil }

    func save(_ state: PersistedState) throws(VirtualAuthenticatorError) {
        try store.saveAuthenticatorState(AuthenticatorStateDocument(state))
    }
}
