import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentVault
import Harness

/// What every capability test stands on, composed as AgentCore's
/// `CoreServices` composes it: the runtime, the devices (the software
/// authenticator through libfido2) and the vault, in a temporary home whose
/// files are real. A test target adds the capability it tests over these and
/// registers its methods in a `MethodTable` of its own.
package final class CapabilityStack: Sendable {
    package let harness: AgentHarness
    package let runtime: AgentRuntime
    package let devices: DevicesCapability
    package let vault: VaultCapability
    package let interaction = RecordingInteraction()
    /// The vault's methods alone, for the stack's own `initializeVault`, `unlock` and `lock`.
    private let vaultMethods: MethodTable

    package static let softwareKey = DeviceChoice(device: "virtual")

    /// A stack over `harness`'s directories (a fresh home when nil): two
    /// stacks over one harness are two processes over the same files (an
    /// agent, and the next one).
    package init(_ harness: AgentHarness? = nil, extraEnvironment: [String: String] = [:], runningAsAgent: Bool = false) throws {
        let harness = try harness ?? AgentHarness()
        self.harness = harness
        runtime = try AgentRuntime(environment: harness.environment.merging(extraEnvironment) { _, extra in extra },
                                   runningAsAgent: runningAsAgent)
        let devices = DevicesCapability(runtime: runtime)
        let vault = VaultCapability(runtime: runtime, devices: devices)
        self.devices = devices
        self.vault = vault
        vaultMethods = MethodTable { table in vault.register(into: &table) }
    }

    /// Creates the vault with a `fido2` slot on `device`; it stays unlocked.
    @discardableResult
    package func initializeVault(_ device: DeviceChoice = softwareKey) async throws -> VaultStatusReport {
        try await vaultMethods.call(VaultInitMethod.self, VaultSlotParams(slot: "fido2", device: device), interaction: interaction)
    }

    @discardableResult
    package func unlock(_ device: DeviceChoice? = softwareKey, slot: String? = "fido2") async throws -> VaultStatusReport {
        try await vaultMethods.call(AgentUnlockMethod.self, VaultSlotParams(slot: slot, device: device), interaction: interaction)
    }

    @discardableResult
    package func lock() async throws -> LockResult {
        try await vaultMethods.call(AgentLockMethod.self, NoParams(), interaction: interaction)
    }
}
