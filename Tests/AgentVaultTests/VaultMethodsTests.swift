import AgentProtocol
import AgentRuntime
import AgentTestSupport
import Foundation
import Harness
import Testing
import TestSupport

/// `vault.init`, `vault.status`, `agent.lock`, `agent.unlock`,
/// `vault.addSlot` and `vault.removeSlot` through the vault capability's
/// methods, in-process, on real vault files and the software authenticator
/// through libfido2.
@Suite(.ownThreads) struct VaultMethodsTests {
    @Test("before vault.init: status says not initialized and locked; unlock and removeSlot say what is missing")
    func noVaultYet() async throws {
        let harness = try AgentHarness()
        let agent = try VaultCapabilities(harness)
        let status = try await agent.status()
        #expect(!status.initialized && status.locked && status.slots.isEmpty && status.entries == 0)
        #expect(status.formatVersion == nil && status.unlockedWith == nil && status.idleLockSeconds == nil)
        #expect(status.path.hasPrefix(harness.home + "/data/"))
        let unlock = await agentError { try await agent.unlock() }
        #expect(unlock?.kind == .vaultError && unlock?.message.contains("vault init") == true, "\(String(describing: unlock))")
        #expect(await agentError { try await agent.methods.call(VaultRemoveSlotMethod.self, .init(slot: 1), interaction: agent.interaction) }?
            .kind == .vaultError)
        #expect(try await agent.lock() == LockResult(locked: true, wasUnlocked: false))
    }

    @Test("vault.init with the software key: one fido2 slot, unlocked by it, files private; a second init is refused")
    func initialize() async throws {
        let harness = try AgentHarness()
        let agent = try VaultCapabilities(harness)
        let created = try await agent.initialize()
        #expect(created.initialized && !created.locked && created.unlockedWith == 1 && created.lockReason == nil)
        #expect(created.formatVersion == 1 && created.entries == 0)
        #expect(created.slots.count == 1)
        let slot = try #require(created.slots.first)
        #expect(slot.id == 1 && slot.type == "fido2" && slot.device == "software authenticator (not hardware)")
        #expect(slot.aaguid == "6f4d2a1e9c3b4e578a602b7d1c5e9f03")
        #expect(slot.reader == nil && slot.cardPublicKey == nil)
        // The software key approves at once (no keepalive asks for a touch): its two
        // operations — the credential, then its hmac-secret — are each announced.
        #expect(agent.interaction.progressSeen == [.processing, .processing])
        #expect(slot.userVerification == true, "the software key is a biometric one")
        #expect(try await agent.status() == created)
        #expect(AgentHarness.mode(created.path) == 0o700)

        let again = await agentError { try await agent.initialize() }
        #expect(again?.kind == .vaultError && again?.message.contains("already") == true, "\(String(describing: again))")
        #expect(try await agent.status() == created, "the first vault is untouched and still open")
    }

    @Test("agent.lock and agent.unlock: the key is wiped and comes back; entries read back, in this process and the next")
    func lockUnlockRoundTrip() async throws {
        let harness = try AgentHarness()
        let agent = try VaultCapabilities(harness)
        try await agent.initialize()
        try await agent.vault.vault.withUnlocked { open in try open.write("note:first", Array("kept".utf8)) }
        #expect(try await agent.status().entries == 1)

        #expect(try await agent.lock() == LockResult(locked: true, wasUnlocked: true))
        let locked = try await agent.status()
        #expect(locked.locked && locked.unlockedWith == nil && locked.lockReason == "locked by `agent.lock`")
        #expect(locked.entries == 1, "the status counts entries without the key")
        let refused = await agentError { try await agent.vault.vault.withUnlocked { open in try open.read("note:first") } }
        #expect(refused?.kind == .locked)
        #expect(try await agent.lock() == LockResult(locked: true, wasUnlocked: false))

        let unlocked = try await agent.unlock()
        #expect(!unlocked.locked && unlocked.unlockedWith == 1 && unlocked.lockReason == nil)
        #expect(try await agent.vault.vault.withUnlocked { open in try open.read("note:first") } == Array("kept".utf8))

        // Another process over the same files (its own device broker: the key's state
        // file read anew) opens the same vault — without a slot named, its only kind.
        let next = try VaultCapabilities(harness)
        #expect(try await next.status().locked)
        #expect(try await next.unlock(slot: nil).unlockedWith == 1)
        #expect(try await next.vault.vault.withUnlocked { open in try open.read("note:first") } == Array("kept".utf8))
    }

    @Test("a fingerprint refused at unlock leaves the vault locked; a PIV slot that is not there is not_found")
    func refusedUnlock() async throws {
        let harness = try AgentHarness()
        try await VaultCapabilities(harness).initialize()
        let refusing = try VaultCapabilities(harness, extraEnvironment: ["PASSKEY_VIRTUAL_VERIFICATION": "deny"])
        let denied = await agentError { try await refusing.unlock() }
        #expect(denied?.kind == .uvFailed, "\(String(describing: denied))")
        #expect(try await refusing.status().locked)
        let piv = await agentError { try await refusing.unlock(nil, slot: "piv") }
        #expect(piv?.kind == .notFound)
        #expect(await agentError { try await refusing.unlock(slot: "ssh") }?.kind == .invalidParams)
    }

    @Test("vault.addSlot a second key, vault.removeSlot the first: the second alone opens it; the last slot stays")
    func slots() async throws {
        let harness = try AgentHarness()
        let agent = try VaultCapabilities(harness)
        try await agent.initialize()
        let second = DeviceChoice(device: "virtual", virtualState: harness.home + "/second-key.json")
        let added = try await agent.methods.call(VaultAddSlotMethod.self, VaultSlotParams(slot: "fido2", device: second),
                                                 interaction: agent.interaction)
        #expect(added.slots.map(\.id) == [1, 2] && added.unlockedWith == 1)

        let removed = try await agent.methods.call(VaultRemoveSlotMethod.self, .init(slot: 1), interaction: agent.interaction)
        #expect(removed.slots.map(\.id) == [2])
        let last = await agentError { try await agent.methods.call(VaultRemoveSlotMethod.self, .init(slot: 2), interaction: agent.interaction) }
        #expect(last?.kind == .vaultError)
        #expect(await agentError { try await agent.methods.call(VaultRemoveSlotMethod.self, .init(slot: 0), interaction: agent.interaction) }?
            .kind == .invalidParams)

        try await agent.lock()
        // The first key's slot is gone: it opens nothing.
        let firstKey = await agentError { try await agent.unlock() }
        #expect(firstKey?.kind == .noCredentials, "\(String(describing: firstKey))")
        #expect(try await agent.unlock(second).unlockedWith == 2)
        // While locked, no slot changes.
        try await agent.lock()
        #expect(await agentError {
            try await agent.methods.call(VaultAddSlotMethod.self, VaultSlotParams(slot: "fido2", device: VaultCapabilities.softwareKey),
                                         interaction: agent.interaction)
        }?.kind == .locked)
    }

    @Test("run as the agent, the idle timeout in force is reported, from config.toml")
    func idleTimeoutReported() async throws {
        let harness = try AgentHarness()
        try FileManager.default.createDirectory(atPath: harness.home + "/config/passkey-agent", withIntermediateDirectories: true)
        try "[agent]\nidle-timeout = 120\n".write(toFile: harness.home + "/config/passkey-agent/config.toml", atomically: true, encoding: .utf8)
        let agent = try VaultCapabilities(harness, runningAsAgent: true)
        let created = try await agent.initialize()
        #expect(created.idleLockSeconds == 120)
        // Locking ends the idle timer with the key.
        try await agent.lock()
        #expect(try await agent.status().lockReason == "locked by `agent.lock`")
    }
}
