import AgentDevices
import AgentProtocol
import AgentRuntime
import FIDO
import Vault

/// `agent.unlock`: finds the slot's device, gets its secret (the card's
/// PIN and ECDH, or the key's touch, UV or PIN and hmac-secret), unwraps the
/// data key and hands the open vault to `VaultService`.
extension VaultCapability {
    package func unlock(_ params: VaultSlotParams, secrets: VaultSecrets) async throws {
        let header = try vault.location.readHeader()
        let kind = try await unlockKind(params, header: header)
        switch kind {
        case .piv:
            let slots = header.slots(of: .piv)
            let reader = params.reader
            let card = try await CardQueue.run { () throws(VaultError) in try PIVCard.find(for: slots, reader: reader) }
            let key = try await secrets.open(card, vaultId: header.vaultId,
                                             purpose: "The vault is locked with \(card.slot.label); its PIN unlocks it.")
            try vault.install(UnlockedVault(location: vault.location, header: header, dataKey: key),
                              slot: card.slot.id, cardReader: card.readerName)
        case .fido2:
            let slots = header.slots(of: .fido2)
            let interaction = secrets.interaction
            let (key, slot) = try await devices.withDevice(deviceChoice(params.device, slots: slots)) { device in
                let slot = try await device.perform { device in
                    Result { () throws(VaultError) in try FIDO2Slot.find(on: device, among: slots) }
                }.get()
                guard case .fido2(let parameters) = slot.protector else { throw VaultError.noSuchSlot(slot.id) }
                let key = try await secrets.withKeyPIN(device, needsPIN: parameters.needsPIN(on: device.info),
                                                       purpose: "The security key needs its PIN to unlock the vault.") {
                    device, pin throws(VaultError) in
                    try FIDO2Slot.open(slot, on: device, pin: pin, vaultId: header.vaultId,
                                       progress: { interaction.progress($0) })
                }
                return (key, slot)
            }
            try vault.install(UnlockedVault(location: vault.location, header: header, dataKey: key),
                              slot: slot.id, cardReader: nil)
        }
    }

    /// The device asked for; without one, and when config.toml names none,
    /// the device the vault's fido2 slots name: the software authenticator
    /// when every slot is its own, or when some are and no security key is
    /// connected. Otherwise the broker looks for the only connected key.
    private func deviceChoice(_ asked: DeviceChoice?, slots: [KeySlot]) -> DeviceChoice? {
        guard asked?.device == nil, devices.defaultDevice == nil else { return asked }
        let named = DeviceChoice(device: "virtual", virtualState: asked?.virtualState)
        let software = slots.filter { slot in
            guard case .fido2(let parameters) = slot.protector else { return false }
            return parameters.deviceLabel == DeviceBroker.virtualDescriptor.product
        }
        if software.isEmpty { return asked }
        if software.count == slots.count || DeviceDiscovery.connectedKeys().isEmpty { return named }
        return asked
    }

    /// The slot kind asked for; without one, the vault's only kind, else
    /// `piv` when a reader is named or one of the vault's cards is present,
    /// else `fido2`.
    private func unlockKind(_ params: VaultSlotParams, header: VaultHeader) async throws -> KeySlot.Kind {
        if let name = params.slot {
            let kind = try slotKind(name, method: AgentUnlockMethod.name)
            guard !header.slots(of: kind).isEmpty else {
                throw VaultError.noSlotOfKind(kind.description, available: header.slotList)
            }
            return kind
        }
        let kinds = Set(header.slots.map(\.kind))
        if kinds.count == 1, let only = kinds.first { return only }
        if params.reader != nil { return .piv }
        if params.device != nil { return .fido2 }
        let slots = header.slots(of: .piv)
        let cardPresent = await (try? CardQueue.run { () throws(VaultError) in try PIVCard.find(for: slots, reader: nil) }) != nil
        return cardPresent ? .piv : .fido2
    }
}
