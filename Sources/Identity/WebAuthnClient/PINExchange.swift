import FIDO
import Interaction

/// Runs a key request that may need the PIN, asking the person for it when
/// needed (also when a built-in fingerprint check fails on a key that has a
/// PIN). A PIN given up front (by a script) is used once and never
/// replaced; a PIN typed at a prompt that turns out wrong leads to a new
/// prompt that says how many tries are left. The PIN itself is never stored.
struct PINExchange {
    var device: FIDODevice
    var interaction: any UserInteraction
    var givenPIN: String?
    var needsPIN: Bool
    var reason: String

    func run<T>(_ body: (String?) async throws(FIDOError) -> T) async throws -> T {
        var pin = givenPIN
        if needsPIN && pin == nil { pin = try await ask(triesLeft: nil) }
        while true {
            do {
                return try await body(pin)
            } catch .pinRequired where pin == nil {
                pin = try await ask(triesLeft: nil)
            } catch .userVerificationFailed where pin == nil && device.info.hasPIN,
                    .userVerificationBlocked where pin == nil && device.info.hasPIN {
                // The fingerprint was not recognised: fall back to the PIN, as browsers do.
                pin = try await ask(triesLeft: nil)
            } catch .pinInvalid(let left) where givenPIN == nil && (left ?? 1) > 0 {
                pin = try await ask(triesLeft: left)
            } catch {
                throw CeremonyError.authenticator(error)
            }
        }
    }

    private func ask(triesLeft: Int?) async throws -> String {
        interaction.progress(.pin)
        return try await interaction.pin(PINRequest(what: "security key PIN", reason: "The security key needs its PIN \(reason).",
                                                    triesLeft: triesLeft))
    }
}
