import AgentCore
import AgentProtocol
import Foundation
import Harness
import Interaction
import Testing
import TestSupport

/// The composition root, in-process: the capabilities AgentCore builds share
/// one runtime and one vault, and its own methods (`agent.status`,
/// `devices.list`) see what the capabilities did. Real vault files in a
/// temporary home, the software authenticator through libfido2.
@Suite(.ownThreads) struct CompositionTests {
    static func core(config: String? = nil) throws -> (AgentCore, AgentHarness) {
        let harness = try AgentHarness()
        if let config {
            try FileManager.default.createDirectory(atPath: harness.home + "/config/passkey-agent", withIntermediateDirectories: true)
            try config.write(toFile: harness.home + "/config/passkey-agent/config.toml", atomically: true, encoding: .utf8)
        }
        return (try AgentCore(environment: harness.environment, runningAsAgent: false), harness)
    }

    static func status(_ core: AgentCore) throws -> AgentStatus {
        let answer = try #require(try core.methods.dispatchQuick(method: AgentStatusMethod.name, params: nil))
        return try JSONDecoder().decode(AgentStatus.self, from: Data(answer))
    }

    @Test("one vault for every capability: agent.status follows vault.init and agent.lock; a token put through the core is answered by its fast path")
    func oneVault() async throws {
        let (core, _) = try Self.core()
        let interaction = SilentInteraction()
        #expect(try Self.status(core).vault == VaultLockState(initialized: false, locked: true, unlockedWith: nil))

        _ = try await core.methods.call(VaultInitMethod.self, VaultSlotParams(slot: "fido2", device: DeviceChoice(device: "virtual")), interaction: interaction)
        #expect(try Self.status(core).vault == VaultLockState(initialized: true, locked: false, unlockedWith: 1))

        let token: JSONValue = .object(["access_token": .string("AT-core"), "token_type": .string("Bearer"), "expires_in": .number(3600),
                                        "issuer": .string("http://127.0.0.1:9"), "client_id": .string("cli"),
                                        "token_endpoint": .string("http://127.0.0.1:9/token")])
        _ = try await core.methods.dispatch(method: TokenPutMethod.name, params: .object(["account": .string("core"), "token": token]), interaction: interaction)
        let typed = try await core.methods.call(TokenGetMethod.self, .init(account: "core"), interaction: interaction)
        #expect(typed.accessToken == "AT-core")
        let line = Array(try #require(TokenGetWire.request(id: 3, account: "core", minValid: 60)).dropLast())
        let fast = try #require(core.methods.dispatchFast(line: line))
        #expect(try JSONDecoder().decode(AccessTokenResult.self, from: Data(fast.result)) == typed)

        let locked = try #require(try core.methods.dispatchQuick(method: AgentLockMethod.name, params: nil))
        #expect(try JSONDecoder().decode(LockResult.self, from: Data(locked)) == LockResult(locked: true, wasUnlocked: true))
        #expect(try Self.status(core).vault == VaultLockState(initialized: true, locked: true, unlockedWith: nil))
        #expect(core.methods.dispatchFast(line: line) == nil)
        do {
            _ = try await core.methods.call(TokenGetMethod.self, .init(account: "core"), interaction: interaction)
            Issue.record("a locked vault answered token.get")
        } catch {
            #expect(error.kind == .locked)
        }
        #expect(core.services.requestsInFlight == 0, "every request counted in is counted out, errors included")
    }

    @Test("config.toml in force: agent.status lists the software key as the default device and each setting with its source")
    func settingsInForce() throws {
        let (core, harness) = try Self.core(config: "[device]\ndefault = \"virtual\"\n\n[agent]\nidle-timeout = 120\n")
        let status = try Self.status(core)
        #expect(status.devices.contains(DeviceSummary(path: "virtual", product: "software authenticator (not hardware)", software: true)))
        #expect(status.configProblems == nil)
        let settings = try #require(status.settings)
        #expect(settings.contains(EffectiveSetting(name: "device.default", value: "virtual", source: "config.toml")))
        #expect(settings.contains(EffectiveSetting(name: "agent.idle-timeout", value: "120", source: "config.toml")))
        #expect(settings.contains(EffectiveSetting(name: "device.virtual-state", value: harness.home + "/data/passkey-agent/virtual-authenticator.json",
                                                   source: "default")))
        #expect(!status.agentRunning && status.uptimeSeconds == 0)
    }

    @Test("a broken config.toml is reported, not fatal: the settings in force are the defaults")
    func brokenConfig() throws {
        let (core, _) = try Self.core(config: "[agent]\nidle-timeout = \"soon\"\nno-such-key = 1\n")
        let status = try Self.status(core)
        let problems = try #require(status.configProblems)
        #expect(problems.count == 2, "\(problems)")
        #expect(status.settings?.contains(EffectiveSetting(name: "agent.idle-timeout", value: "900", source: "default")) == true)
    }

    @Test("devices.list of the software key reports it without creating its state file")
    func devicesListLooksOnly() async throws {
        let (core, _) = try Self.core()
        let list = try await core.methods.call(DevicesListMethod.self, DeviceChoice(device: "virtual"), interaction: SilentInteraction())
        let report = try #require(list.devices.first)
        #expect(list.devices.count == 1 && report.software && report.path == "virtual" && report.error == nil)
        #expect(report.aaguid == "6f4d2a1e9c3b4e578a602b7d1c5e9f03" && !report.pinSet)
        #expect(!FileManager.default.fileExists(atPath: core.services.paths.virtualAuthenticatorState))
    }
}

/// Nobody answers; progress is ignored.
private struct SilentInteraction: UserInteraction {
    func progress(_ stage: ProgressStage) {}
    func pin(_ request: PINRequest) async throws -> String { throw AgentError(.cancelled, "no one to ask") }
    func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int { throw AgentError(.cancelled, "no one to ask") }
    func confirm(_ request: ConfirmationRequest) async throws -> Bool { false }
}
