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
/// when no agent answers. Same code, same answers: both call `methods`,
/// which counts each request while it runs (the idle timeout waits for none).
public final class AgentCore: Sendable {
    public let services: CoreServices
    public let methods: MethodTable

    public init(environment: [String: String], runningAsAgent: Bool) throws(AgentError) {
        let services = try CoreServices(environment: environment, runningAsAgent: runningAsAgent)
        self.services = services
        methods = MethodTable(counting: services.runtime.requests) { table in services.register(into: &table) }
    }
}
