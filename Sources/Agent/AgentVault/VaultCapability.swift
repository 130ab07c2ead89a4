import AgentDevices
import AgentProtocol
import AgentRuntime
import Settings

/// The vault at run time: its state (`VaultService`: locked or open, the idle
/// lock, the card watch), unlocking with a card or a key, enrolment of key
/// slots, and the `vault.*`, `agent.unlock` and `agent.lock` methods.
package final class VaultCapability: Sendable {
    package let runtime: AgentRuntime
    package let vault: VaultService
    /// Unlocking with a `fido2` slot, and enrolling one, needs a key.
    package let devices: DeviceBroker

    package init(runtime: AgentRuntime, devices: DevicesCapability) {
        self.runtime = runtime
        self.devices = devices.devices
        vault = VaultService(paths: runtime.paths, settings: runtime.settings, runningAsAgent: runtime.runningAsAgent)
    }

    package var settings: Settings { runtime.settings }
    package var config: LiveSettings { runtime.config }

    package func register(into table: inout MethodTable.Builder) {
        registerVault(into: &table)
    }
}
