import DevServerBase
import FoundationEssentials

/// Logins the authorization server sent to an external IdP and awaits at its
/// callback, by the SHA-256 of the state it made for each. Single-use,
/// bounded, in memory.
actor IdPLogins {
    static let maxEntries = 10_000
    /// Long enough for the IdP's transaction (300 s by default) and the person.
    static let lifetime: TimeInterval = 900

    struct Pending: Sendable {
        /// The app's request, already checked, completed when the IdP answers.
        var request: ValidatedAuthorizationRequest
        /// The nonce this server sent the IdP, expected in its ID token.
        var idpNonce: String
        var expiresAt: Date
    }

    private var pending: [String: Pending] = [:]

    struct Full: Error {}

    /// Stores a login; returns the state to send the IdP.
    func start(_ request: ValidatedAuthorizationRequest, idpNonce: String, now: Date) throws(Full) -> String {
        pending = pending.filter { $0.value.expiresAt > now }
        guard pending.count < Self.maxEntries else { throw Full() }
        let state = OpaqueSecret.make()
        pending[OpaqueSecret.hash(state)] = Pending(request: request, idpNonce: idpNonce, expiresAt: now.addingTimeInterval(Self.lifetime))
        return state
    }

    /// The login a state names, removed: a callback is answered once.
    func finish(state: String, now: Date) -> Pending? {
        guard let login = pending.removeValue(forKey: OpaqueSecret.hash(state)), now < login.expiresAt else { return nil }
        return login
    }
}
