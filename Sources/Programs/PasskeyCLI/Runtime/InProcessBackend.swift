import AgentProtocol
import Interaction
import Locking

/// The agent's core, run inside this process: what a verb calls when no
/// agent answers. The CLI library does not link the core (it would bring
/// libfido2, pcsc-lite and the rest into every `passkey token get`), so
/// the program that does, `passkey-local`, registers one at start.
public protocol InProcessCore: Sendable {
    func call<M: AgentMethod>(_ method: M.Type, _ params: M.Params,
                              interaction: any UserInteraction) async throws(AgentError) -> M.Result
}

/// Where `passkey-local` registers its core before running the command.
public enum InProcessBackend {
    public typealias Factory = @Sendable (_ environment: [String: String]) throws(AgentError) -> any InProcessCore

    private static let factory = Locked<Factory?>(nil)

    public static func register(_ make: @escaping Factory) {
        factory.withLock { $0 = make }
    }

    /// A core built by the registered factory; nil in the light `passkey`.
    static func make(environment: [String: String]) throws(AgentError) -> (any InProcessCore)? {
        guard let make = factory.withLock({ $0 }) else { return nil }
        return try make(environment)
    }
}
