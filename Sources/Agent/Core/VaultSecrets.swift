import AgentProtocol
import FIDO
import Interaction
import Vault
import WebAuthnClient

/// Opening a PIV card or a FIDO2 key with its PIN, the way the ceremonies
/// do it (`PINExchange`): a PIN given in the params is used once and never
/// replaced; a PIN typed at a prompt that turns out wrong leads to one new
/// prompt that says how many tries are left. The agent never retries a PIN
/// on its own, and never keeps one.
struct VaultSecrets {
    let interaction: GuardedInteraction
    let givenPIN: String?

    /// Verifies the card's PIN and lets the card unwrap the data key.
    func open(_ card: PIVCard, vaultId: [UInt8], purpose: String) async throws -> DataKey {
        let tries = try await CardQueue.run { () throws(VaultError) in try card.pinTriesLeft() }
        let reader = card.readerName
        func ask(_ triesLeft: Int?) async throws -> String {
            var reason = "\(purpose) The card is in \"\(reader)\"."
            if triesLeft == nil, let tries { reason += " It has \(tries) PIN \(tries == 1 ? "try" : "tries") left." }
            return try await interaction.pin(PINRequest(what: "card PIN", reason: reason, triesLeft: triesLeft))
        }
        var pin: String
        if let givenPIN { pin = givenPIN } else { pin = try await ask(nil) }
        while true {
            let bytes = Array(pin.utf8)
            let outcome = await Self.outcome { () throws(VaultError) in
                try await CardQueue.run { () throws(VaultError) in try card.open(pin: bytes, vaultId: vaultId) }
            }
            switch outcome {
            case .success(let key):
                return key
            case .failure(.wrongPIN(let left)) where givenPIN == nil && left > 0:
                pin = try await ask(left)
            case .failure(let error):
                throw error
            }
        }
    }

    /// Runs `attempt` on the key with its PIN when `needsPIN` (asking for it
    /// if none was given), and again after a wrong PIN typed at the prompt.
    func withKeyPIN<T: Sendable>(_ device: FIDODevice, needsPIN: Bool, purpose: String,
                                 _ attempt: @escaping @Sendable (FIDODevice, String?) throws(VaultError) -> T) async throws -> T {
        func ask(_ triesLeft: Int?) async throws -> String {
            try await interaction.pin(PINRequest(what: "security key PIN", reason: "\(purpose)", triesLeft: triesLeft))
        }
        var pin = givenPIN
        if needsPIN && pin == nil { pin = try await ask(nil) }
        while true {
            let current = pin
            let outcome = try await device.perform { device in
                Result { () throws(VaultError) -> T in try attempt(device, current) }
            }
            switch outcome {
            case .success(let value):
                return value
            case .failure(.securityKey(.pinRequired)) where pin == nil:
                pin = try await ask(nil)
            case .failure(.securityKey(.pinInvalid(let left))) where givenPIN == nil && (left ?? 1) > 0:
                pin = try await ask(left)
            case .failure(let error):
                throw error
            }
        }
    }

    /// The result of `body` as a value (switching on it keeps the compiler
    /// away from typed-throws catch patterns in async loops, which crash Swift 6.3).
    private static func outcome<T>(_ body: () async throws(VaultError) -> T) async -> Result<T, VaultError> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }
}
