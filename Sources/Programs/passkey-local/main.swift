import AgentCore
import AgentProtocol
import Interaction
import PasskeyCLI

/// `passkey-local`: the `passkey` command tree with the agent's core linked
/// in. The light `passkey` execs it, with the same command line, when no
/// agent answers or `--no-agent` is given; it is not meant to be run by hand
/// (though it behaves exactly like `passkey --no-agent` when no agent runs).
struct LocalCore: InProcessCore {
    let core: AgentCore

    func call<M: AgentMethod>(_ method: M.Type, _ params: M.Params,
                              interaction: any UserInteraction) async throws(AgentError) -> M.Result {
        try await core.methods.call(method, params, interaction: interaction)
    }
}

InProcessBackend.register { environment throws(AgentError) in
    LocalCore(core: try AgentCore(environment: environment, runningAsAgent: false))
}
await PasskeyCommand.runOnMainThread()
