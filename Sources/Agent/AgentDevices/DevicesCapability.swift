import AgentProtocol
import AgentRuntime
import HTTPTransport
import Settings

/// Security keys: the broker that opens them, one request per key at a
/// time, and the methods that use a key directly — `webauthn.*`, `pin.*`,
/// `credentials.*`, `key.*`, and the passwordless.dev ceremonies.
package final class DevicesCapability: Sendable {
    package let runtime: AgentRuntime
    package let devices: DeviceBroker

    package init(runtime: AgentRuntime) {
        self.runtime = runtime
        devices = DeviceBroker(config: runtime.config, paths: runtime.paths, environment: runtime.environment)
    }

    package var settings: Settings { runtime.settings }
    package var http: HTTPTransport { runtime.http }

    package func register(into table: inout MethodTable.Builder) {
        registerWebAuthn(into: &table)
        registerPIN(into: &table)
        registerCredentials(into: &table)
        registerKey(into: &table)
        registerPasswordless(into: &table)
    }
}
