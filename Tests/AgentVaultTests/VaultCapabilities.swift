import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTestSupport
import AgentVault
import Harness
import Interaction
import Locking

/// The vault capability over what it needs (the runtime and the devices,
/// a `fido2` slot's key: a `CapabilityStack`), with its methods in a
/// `MethodTable`, in-process.
final class VaultCapabilities: Sendable {
    let stack: CapabilityStack
    let methods: MethodTable
    var runtime: AgentRuntime { stack.runtime }
    var vault: VaultCapability { stack.vault }
    var interaction: RecordingInteraction { stack.interaction }

    /// A stack over `harness`'s directories: two stacks over one harness are
    /// two processes over the same files (an agent, and the next one).
    init(_ harness: AgentHarness, extraEnvironment: [String: String] = [:], runningAsAgent: Bool = false) throws {
        let stack = try CapabilityStack(harness, extraEnvironment: extraEnvironment, runningAsAgent: runningAsAgent)
        self.stack = stack
        methods = MethodTable { table in stack.vault.register(into: &table) }
    }

    static let softwareKey = CapabilityStack.softwareKey

    @discardableResult
    func initialize(_ device: DeviceChoice = softwareKey) async throws -> VaultStatusReport { try await stack.initializeVault(device) }

    @discardableResult
    func unlock(_ device: DeviceChoice? = softwareKey, slot: String? = "fido2") async throws -> VaultStatusReport {
        try await stack.unlock(device, slot: slot)
    }

    @discardableResult
    func lock() async throws -> LockResult { try await stack.lock() }

    func status() async throws -> VaultStatusReport {
        try await methods.call(VaultStatusMethod.self, NoParams(), interaction: interaction)
    }
}
