import AgentClient
import AgentProtocol
import Interaction
import Settings

/// Where a verb runs: through the agent when its socket answers, else in
/// this process with the agent's core (`--no-agent` forces that). Only
/// `passkey-local` links the core: the light `passkey` hands the whole
/// command line over to it instead (LocalProgram).
enum Backend {
    case agent(AgentConnection)
    case inProcess(any InProcessCore)

    static func choose(noAgent: Bool) throws(AgentError) -> Backend {
        let environment = ProcessEnvironment.current
        // An agent that is there but unusable (stuck, or another user's) is an
        // error, never a reason to run without it.
        if !noAgent, let path = AgentPaths(environment: environment).socket,
           let connection = try AgentConnection.connect(path: path) {
            return .agent(connection)
        }
        guard let core = try InProcessBackend.make(environment: environment) else {
            throw LocalProgram.handOver()
        }
        return .inProcess(core)
    }

    func call<M: AgentMethod>(_ method: M.Type, _ params: M.Params,
                              interaction: any UserInteraction) async throws(AgentError) -> M.Result {
        switch self {
        case .agent(let connection): return try await connection.call(method, params, interaction: interaction)
        case .inProcess(let core): return try await core.call(method, params, interaction: interaction)
        }
    }
}
