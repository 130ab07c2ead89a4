import AgentProtocol
import AgentRuntime
import FIDO
import Vault

/// Making a key slot — the first one (`vault.init`) or another
/// (`vault.addSlot`) — on a PIV card or a FIDO2 key.
extension VaultCapability {
    /// What a new slot turned out to be, and the card reader that proved it (piv).
    package struct EnrolledSlot: Sendable {
        package var slot: KeySlot
        package var cardReader: String?
    }

    package func enrolSlot(kind: KeySlot.Kind, _ params: VaultSlotParams, target: EnrolmentTarget,
                   secrets: VaultSecrets) async throws -> EnrolledSlot {
        switch kind {
        case .piv: return try await enrolPIV(params, target: target, secrets: secrets)
        case .fido2: return try await enrolFIDO2(params, target: target, secrets: secrets)
        }
    }

    /// Wraps the data key for the card's 9D public key (no card operation
    /// needed), then proves the slot: the card, with its PIN, must unwrap
    /// the same key — so a slot is never written that its card cannot open.
    private func enrolPIV(_ params: VaultSlotParams, target: EnrolmentTarget,
                          secrets: VaultSecrets) async throws -> EnrolledSlot {
        let reader = params.reader
        let facts = try await CardQueue.run { () throws(VaultError) in try PIVCard.enrolmentFacts(reader: reader) }
        let slot = try PIVCard.makeSlot(for: facts, target: target)
        let card = try await CardQueue.run { () throws(VaultError) in try PIVCard.find(for: [slot], reader: facts.readerName) }
        let key = try await secrets.open(card, vaultId: target.vaultId,
                                         purpose: "The card's PIN proves it can open the vault's new key slot.")
        defer { key.wipe() }
        guard target.confirms(key) else {
            throw VaultError.slotDoesNotOpen(slot: slot.id, reason: "the card's key agreement does not match its public key")
        }
        return EnrolledSlot(slot: slot, cardReader: facts.readerName)
    }

    /// Makes a credential with hmac-secret on the key (a touch, with UV or
    /// the PIN collected first when the key has them), then a second touch
    /// for the secret that wraps the data key.
    private func enrolFIDO2(_ params: VaultSlotParams, target: EnrolmentTarget,
                            secrets: VaultSecrets) async throws -> EnrolledSlot {
        let interaction = secrets.interaction
        let slot = try await devices.withDevice(params.device) { device in
            let plan = try FIDO2EnrolmentPlan(for: device.info)
            return try await secrets.withKeyPIN(device, needsPIN: plan.needsPIN,
                                                purpose: "The security key needs its PIN to make the vault's key slot.") {
                device, pin throws(VaultError) in
                try FIDO2Slot.enrol(on: device, plan: plan, pin: pin, target: target,
                                    progress: { interaction.progress($0) })
            }
        }
        return EnrolledSlot(slot: slot, cardReader: nil)
    }

    /// `piv` or `fido2` from the params; required for `vault.init` and `vault.addSlot`.
    package func slotKind(_ name: String?, method: String) throws(AgentError) -> KeySlot.Kind {
        guard let name else {
            throw AgentError(.invalidParams, "\(method) needs `slot`: \"piv\" or \"fido2\"")
        }
        guard let kind = KeySlot.Kind(name: name) else {
            throw AgentError(.invalidParams, "`slot` is \"piv\" or \"fido2\", not \"\(name)\"")
        }
        return kind
    }
}
