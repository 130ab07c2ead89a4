import AgentProtocol
import AgentRuntime
import Hexadecimal
import Interaction
import Vault
import WebAuthnClient

/// The vault's methods: `agent.unlock`, `agent.lock`, `vault.init`,
/// `vault.addSlot`, `vault.removeSlot`, `vault.status`.
extension VaultCapability {
    package func registerVault(into table: inout MethodTable.Builder) {
        table.register(AgentUnlockMethod.self) { params, interaction in
            let secrets = VaultSecrets(interaction: GuardedInteraction(interaction, interactive: params.interactive ?? false),
                                       givenPIN: params.pin)
            try await self.vault.slotOperations.withLock { try await self.unlock(params, secrets: secrets) }
            return try self.vaultReport()
        }
        table.registerQuick(AgentLockMethod.self) { _ in
            LockResult(locked: true, wasUnlocked: self.vault.lock(reason: "locked by `agent.lock`"))
        }
        table.register(VaultInitMethod.self) { params, interaction in
            try await self.initializeVault(params, interaction: interaction)
        }
        table.register(VaultAddSlotMethod.self) { params, interaction in
            try await self.addSlot(params, interaction: interaction)
        }
        table.register(VaultRemoveSlotMethod.self) { params, _ in
            guard let id = UInt8(exactly: params.slot), id > 0 else {
                throw AgentError(.invalidParams, "`slot` is a slot number from `vault status` (1–255)")
            }
            try await self.vault.slotOperations.withLock {
                try await self.vault.withUnlocked { open in _ = try open.removeSlot(id) }
            }
            return try self.vaultReport()
        }
        table.register(VaultStatusMethod.self) { _, _ in
            try self.vaultReport()
        }
    }

    /// Creates the vault with its first slot and leaves it unlocked. Never
    /// replaces an existing vault.
    private func initializeVault(_ params: VaultSlotParams, interaction: any UserInteraction) async throws -> VaultStatusReport {
        let kind = try slotKind(params.slot, method: VaultInitMethod.name)
        let secrets = VaultSecrets(interaction: GuardedInteraction(interaction, interactive: params.interactive ?? false),
                                   givenPIN: params.pin)
        try await vault.slotOperations.withLock {
            let new = try NewVault.prepare(at: self.vault.location)
            let enrolled = try await self.enrolSlot(kind: kind, params, target: new.target, secrets: secrets)
            let open = try new.create(with: enrolled.slot)
            try self.vault.install(open, slot: enrolled.slot.id, cardReader: enrolled.cardReader)
        }
        return try vaultReport()
    }

    /// Adds a slot to the unlocked vault.
    private func addSlot(_ params: VaultSlotParams, interaction: any UserInteraction) async throws -> VaultStatusReport {
        let kind = try slotKind(params.slot, method: VaultAddSlotMethod.name)
        let secrets = VaultSecrets(interaction: GuardedInteraction(interaction, interactive: params.interactive ?? false),
                                   givenPIN: params.pin)
        try await vault.slotOperations.withLock {
            try await self.vault.withUnlocked { open in
                let target = try open.enrolmentTarget()
                let enrolled = try await self.enrolSlot(kind: kind, params, target: target, secrets: secrets)
                try open.add(enrolled.slot)
            }
        }
        return try vaultReport()
    }

    /// What `vault status` shows: no key needed, no secret shown.
    package func vaultReport() throws(VaultError) -> VaultStatusReport {
        let location = vault.location
        guard location.exists else {
            return VaultStatusReport(path: location.directory, initialized: false, formatVersion: nil, locked: true,
                                     unlockedWith: nil, idleLockSeconds: vault.idleLockSeconds, entries: 0, slots: [])
        }
        let header = try location.readHeader()
        let unlocked = vault.unlockedWith
        return VaultStatusReport(
            path: location.directory, initialized: true, formatVersion: Int(header.version), locked: unlocked == nil,
            unlockedWith: unlocked.map(Int.init), lockReason: unlocked == nil ? vault.lockReason : nil,
            idleLockSeconds: vault.idleLockSeconds, entries: try location.entryCount(),
            slots: header.slots.map(Self.summary))
    }

    /// The vault's state for `agent.status`: cheap (one stat), never throws.
    package func vaultLockState() -> VaultLockState {
        VaultLockState(initialized: vault.location.exists, locked: !vault.isUnlocked,
                       unlockedWith: vault.unlockedWith.map(Int.init))
    }

    package static func summary(_ slot: KeySlot) -> KeySlotSummary {
        switch slot.protector {
        case .piv(let piv):
            return KeySlotSummary(id: Int(slot.id), type: "piv", description: piv.cardDescription,
                                  reader: piv.readerName.isEmpty ? nil : piv.readerName, serialNumber: piv.serialNumber,
                                  chuidGuid: piv.chuidGUID.map { Hexadecimal.encode($0) }, cardPublicKey: Hexadecimal.encode(piv.cardPublicKey))
        case .fido2(let fido2):
            return KeySlotSummary(id: Int(slot.id), type: "fido2", description: fido2.deviceDescription,
                                  device: fido2.deviceLabel.isEmpty ? nil : fido2.deviceLabel, aaguid: Hexadecimal.encode(fido2.aaguid),
                                  userVerification: fido2.userVerification,
                                  credProtect: fido2.credProtect == 0 ? nil : Int(fido2.credProtect))
        }
    }
}
