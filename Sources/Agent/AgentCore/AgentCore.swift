import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import Interaction
import Settings
import WebAuthnClient

/// The operations passkey-agent offers, one handler per socket method.
/// The agent serves them over its socket; `passkey` runs them in-process
/// when no agent answers. Same code, same answers.
public final class AgentCore: Sendable {
    public let services: CoreServices
    public let methods: MethodTable

    public init(environment: [String: String], runningAsAgent: Bool) throws(AgentError) {
        let services = try CoreServices(environment: environment, runningAsAgent: runningAsAgent)
        self.services = services
        methods = MethodTable { table in services.register(into: &table) }
    }

    /// Runs a method with JSON params, counting it as in flight while it runs.
    public func dispatch(method: String, params: JSONValue?, interaction: any UserInteraction) async throws(AgentError) -> JSONValue {
        services.runtime.beginRequest()
        defer { services.runtime.endRequest() }
        return try await methods.dispatch(method: method, params: params, interaction: interaction)
    }

    /// Answers a quick method (e.g. `agent.status`) without a task hop, with
    /// its result already encoded as JSON; nil for others.
    public func dispatchQuick(method: String, params: JSONValue?) throws(AgentError) -> [UInt8]? {
        services.runtime.beginRequest()
        defer { services.runtime.endRequest() }
        return try methods.dispatchQuick(method: method, params: params)
    }

    /// A fast path's answer to a request line (`token.get` of a stored
    /// token that is still good, kept in memory): its id and the result,
    /// encoded, read and answered without JSONDecoder or a task hop; nil when
    /// the line must go the usual way (RequestParser, `dispatch`).
    public func dispatchFast(line: [UInt8]) -> (id: RPCID, result: [UInt8])? {
        services.runtime.beginRequest()
        defer { services.runtime.endRequest() }
        return methods.dispatchFast(line: line)
    }

    /// Runs a method with typed params (the CLI's in-process path).
    public func call<M: AgentMethod>(_ method: M.Type, _ params: M.Params,
                                     interaction: any UserInteraction) async throws(AgentError) -> M.Result {
        services.runtime.beginRequest()
        defer { services.runtime.endRequest() }
        return try await methods.call(method, params, interaction: interaction)
    }
}


