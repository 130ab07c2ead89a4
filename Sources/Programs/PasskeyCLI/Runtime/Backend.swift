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
        // A PASSKEY_AGENT_SOCK that names a socket nobody answers on is most
        // often an ssh -R forward whose session or forward has ended: a core
        // started here would hold none of the tokens meant, so say so.
        if !noAgent, let explicit = environment["PASSKEY_AGENT_SOCK"], !explicit.isEmpty, SocketFile.exists(explicit) {
            throw AgentError(.notFound, "no agent answers at PASSKEY_AGENT_SOCK=\(explicit). On a remote host, run "
                             + "`passkey forward --account ACCOUNT` where your key is and connect with the ssh -R line it prints; "
                             + "or unset PASSKEY_AGENT_SOCK to use this machine's own")
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

#if canImport(Glibc)
import Glibc
#endif

/// Whether a path names a socket (not following a symbolic link).
enum SocketFile {
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }
}
