import AgentProtocol
import AgentRuntime
import FIDO
import Interaction
import Vault
import WebAuthnClient

/// Opening a PIV card or a FIDO2 key with its PIN through the one PIN loop
/// the ceremonies use (`PINExchange`): a PIN given in the params is used once
/// and never replaced; a PIN typed at a prompt that turns out wrong leads to
/// a new prompt that says how many tries are left; a key whose fingerprint
/// check fails falls back to its PIN. The agent never retries a PIN on its
/// own, and never keeps one.
package struct VaultSecrets {
    package let interaction: GuardedInteraction
    package let givenPIN: String?

    private var exchange: PINExchange { PINExchange(interaction: interaction, givenPIN: givenPIN) }

    /// Verifies the card's PIN and lets the card unwrap the data key.
    func open(_ card: PIVCard, vaultId: [UInt8], purpose: String) async throws -> DataKey {
        let tries = try await CardQueue.run { () throws(VaultError) in try card.pinTriesLeft() }
        let reader = card.readerName
        return try await exchange.run(needsPIN: true, request: { triesLeft in
            var reason = "\(purpose) The card is in \"\(reader)\"."
            if triesLeft == nil, let tries { reason += " It has \(tries) PIN \(tries == 1 ? "try" : "tries") left." }
            return PINRequest(what: "card PIN", reason: reason, triesLeft: triesLeft)
        }, classify: { error in
            guard case .wrongPIN(let left)? = error as? VaultError else { return nil }
            return .wrongPIN(triesLeft: left)
        }, attempt: { pin in
            // Never nil: `needsPIN` asks for it before the first attempt.
            let bytes = Array((pin ?? "").utf8)
            return try await CardQueue.run { () throws(VaultError) in try card.open(pin: bytes, vaultId: vaultId) }
        })
    }

    /// Runs `attempt` on the key with its PIN when `needsPIN` (asking for it
    /// if none was given), when the key asks for it or does not recognise the
    /// fingerprint, and again after a wrong PIN typed at the prompt.
    package func withKeyPIN<T: Sendable>(_ device: FIDODevice, needsPIN: Bool, purpose: String,
                                 _ attempt: @escaping @Sendable (FIDODevice, String?) throws(VaultError) -> T) async throws -> T {
        try await exchange.run(on: device, needsPIN: needsPIN, reason: purpose, keyError: { error in
            guard case .securityKey(let keyError)? = error as? VaultError else { return nil }
            return keyError
        }, attempt: { pin in
            try await device.perform { device in
                Result { () throws(VaultError) -> T in try attempt(device, pin) }
            }.get()
        })
    }
}
