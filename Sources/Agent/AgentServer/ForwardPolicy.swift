import AgentCore
import AgentProtocol
import Interaction
import Locking
import Synchronization

/// What one forwarding socket lets through (docs/PROTOCOL.md, "Forwarding").
/// Every request on a forwarding listener passes `check` before anything runs
/// and `confirm` before it is dispatched, whatever the peer's uid: the far end
/// of `ssh -R` is another host, though the local `ssh` connects as the user.
final class ForwardPolicy: Sendable {
    /// What `forward.open` serves when it names no methods.
    static let defaultAllow = [TokenGetMethod.name, AgentStatusMethod.name]
    /// The only methods a forward may serve: the status, and tokens of the
    /// listed accounts. Anything wider (unlock, ceremonies with the key,
    /// `vault.removeSlot`, `forward.*`) would hand the remote host the key.
    static let forwardable: Set<String> = [TokenGetMethod.name, AgentStatusMethod.name]

    let id: Int
    let path: String
    let accounts: Set<String>
    let allow: Set<String>
    let confirmation: ForwardConfirm
    /// Accounts already confirmed, for `first`.
    private let confirmed = Locked<Set<String>>([])
    /// Cleared by `forward.close` and the TTL: the connections still open are
    /// closed shortly after, but nothing they send from then on is served.
    private let open = Atomic<Bool>(true)

    init(id: Int, path: String, accounts: Set<String>, allow: Set<String>, confirmation: ForwardConfirm) {
        self.id = id
        self.path = path
        self.accounts = accounts
        self.allow = allow
        self.confirmation = confirmation
    }

    /// Refuses a method or an account outside the forward's lists, before anything runs.
    func check(method: String, params: JSONValue?) throws(AgentError) {
        guard open.load(ordering: .acquiring) else { throw refusal("forwarding socket \(id) is closed") }
        guard allow.contains(method), Self.forwardable.contains(method) else {
            throw refusal("\(method) is not served through forwarding socket \(id) (it serves \(allow.sorted().joined(separator: ", ")))")
        }
        if method == TokenGetMethod.name {
            guard let account = params?["account"]?.string, accounts.contains(account) else {
                let named = params?["account"]?.string.map { "“\(DisplayText.plain($0))”" } ?? "an unnamed account"
                throw refusal("the token of \(named) is not served through forwarding socket \(id) (it serves \(accounts.sorted().joined(separator: ", ")))")
            }
        }
    }

    /// Asks the person at the agent's desktop before a token leaves through
    /// the forward (per `confirmation`); a refusal releases nothing.
    func confirm(method: String, params: JSONValue?, interaction: any UserInteraction) async throws(AgentError) {
        // Closed between `check` and now (the request waited for its turn).
        guard open.load(ordering: .acquiring) else { throw refusal("forwarding socket \(id) is closed") }
        guard method == TokenGetMethod.name, let account = params?["account"]?.string else { return }
        switch confirmation {
        case .never: return
        case .first: if confirmed.withLock({ $0.contains(account) }) { return }
        case .always: break
        }
        let request = ConfirmationRequest(
            title: "Give the token of “\(account)” to a remote host through forwarding socket \(id)?",
            facts: [.init("Account", account), .init("Through", "forwarding socket \(id) (\(path))"),
                    .init("Requested by", "whoever reaches the far end of the ssh -R forward: a Unix socket does not say which host")])
        let allowed: Bool
        do { allowed = try await interaction.confirm(request) } catch { throw AgentError(error) }
        guard allowed else {
            throw AgentError(.cancelled, "the token of \(account) was declined at the agent's desktop (forwarding socket \(id)); nothing was released")
        }
        // Closed while the person was asked: nothing leaves.
        guard open.load(ordering: .acquiring) else { throw refusal("forwarding socket \(id) is closed") }
        if confirmation == .first { confirmed.withLock { _ = $0.insert(account) } }
    }

    /// From now on every request is refused.
    func end() { open.store(false, ordering: .releasing) }

    private func refusal(_ message: String) -> AgentError {
        AgentError(.denied, message, details: ["errorCode": .string("forward_restricted"), "forward": .number(Double(id))])
    }
}
