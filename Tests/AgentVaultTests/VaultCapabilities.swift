import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentVault
import Harness
import Interaction
import Locking

/// The vault capability over what it needs — the runtime and the devices (a
/// `fido2` slot's key) — composed as AgentCore's `CoreServices` composes it,
/// with its methods in a `MethodTable`, in-process. Its files are real, in a
/// temporary home; its key is the software authenticator through libfido2.
final class VaultCapabilities: Sendable {
    let runtime: AgentRuntime
    let vault: VaultCapability
    let methods: MethodTable
    let interaction = RecordingInteraction()

    /// A stack over `harness`'s directories: two stacks over one harness are
    /// two processes over the same files (an agent, and the next one).
    init(_ harness: AgentHarness, extraEnvironment: [String: String] = [:], runningAsAgent: Bool = false) throws {
        runtime = try AgentRuntime(environment: harness.environment.merging(extraEnvironment) { _, extra in extra },
                                   runningAsAgent: runningAsAgent)
        let devices = DevicesCapability(runtime: runtime)
        let vault = VaultCapability(runtime: runtime, devices: devices)
        self.vault = vault
        methods = MethodTable { table in vault.register(into: &table) }
    }

    static let softwareKey = DeviceChoice(device: "virtual")

    @discardableResult
    func initialize(_ device: DeviceChoice = softwareKey) async throws -> VaultStatusReport {
        try await methods.call(VaultInitMethod.self, VaultSlotParams(slot: "fido2", device: device), interaction: interaction)
    }

    @discardableResult
    func unlock(_ device: DeviceChoice? = softwareKey, slot: String? = "fido2") async throws -> VaultStatusReport {
        try await methods.call(AgentUnlockMethod.self, VaultSlotParams(slot: slot, device: device), interaction: interaction)
    }

    @discardableResult
    func lock() async throws -> LockResult {
        try await methods.call(AgentLockMethod.self, NoParams(), interaction: interaction)
    }

    func status() async throws -> VaultStatusReport {
        try await methods.call(VaultStatusMethod.self, NoParams(), interaction: interaction)
    }
}

/// The error a call threw, for `#expect` on its kind and details.
func agentError(_ body: () async throws -> some Any) async -> AgentError? {
    do {
        _ = try await body()
        return nil
    } catch let error as AgentError {
        return error
    } catch {
        return AgentError(.internal, "not an AgentError: \(error)")
    }
}

/// A client that answers no question: it records the progress it is told;
/// a question (a PIN, an account, a confirmation) is refused.
final class RecordingInteraction: UserInteraction {
    private let stages = Locked<[ProgressStage]>([])

    var progressSeen: [ProgressStage] { stages.withLock { $0 } }

    func progress(_ stage: ProgressStage) { stages.withLock { $0.append(stage) } }
    func pin(_ request: PINRequest) async throws -> String { throw AgentError(.cancelled, "this test answers no PIN question") }
    func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int { throw AgentError(.cancelled, "this test chooses no account") }
    func confirm(_ request: ConfirmationRequest) async throws -> Bool { false }
}
