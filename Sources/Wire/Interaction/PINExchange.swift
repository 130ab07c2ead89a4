/// The one PIN retry loop, for every secret an operation may need from the
/// person: a security key's PIN (ceremonies, the vault's `fido2` slots) and a
/// card's PIN (the vault's `piv` slots).
///
/// - A PIN given up front (`pin` in the params, `--pin-stdin`) is used once
///   and never replaced: after a wrong one the error goes back to the caller.
/// - Otherwise the PIN is asked for through the `UserInteraction` — before
///   the first attempt when it is known to be needed, or when an attempt
///   without one says it is (the authenticator wants it, or a fingerprint it
///   did not recognise falls back to the PIN, as browsers do).
/// - A PIN typed at a prompt that turns out wrong leads to a new prompt that
///   says how many tries are left; at no tries left (blocked) the loop stops.
/// - The agent never retries a PIN on its own and never keeps one.
///
/// What a failure means for the PIN is the caller's to say (`classify`): a
/// key's errors are not a card's.
public struct PINExchange: Sendable {
    /// What a failed attempt means for the PIN.
    public enum Retry: Sendable, Equatable {
        /// The attempt needs a PIN it was not given: ask for one.
        case askForPIN
        /// The PIN was wrong; `triesLeft` when the device said.
        case wrongPIN(triesLeft: Int?)
    }

    public var interaction: any UserInteraction
    public var givenPIN: String?

    public init(interaction: any UserInteraction, givenPIN: String?) {
        self.interaction = interaction
        self.givenPIN = givenPIN
    }

    /// Runs `attempt` with the PIN (nil: none yet) until it succeeds or fails
    /// in a way no new PIN mends. `request` words the question, given the
    /// tries left after a wrong PIN (nil for the first question).
    public func run<T>(needsPIN: Bool,
                       request: (_ triesLeft: Int?) -> PINRequest,
                       classify: (any Error) -> Retry?,
                       attempt: (_ pin: String?) async throws -> T) async throws -> T {
        var pin = givenPIN
        if needsPIN && pin == nil { pin = try await ask(request(nil)) }
        while true {
            let failure: any Error
            do {
                return try await attempt(pin)
            } catch {
                failure = error
            }
            switch classify(failure) {
            case .askForPIN? where pin == nil:
                pin = try await ask(request(nil))
            case .wrongPIN(let left)? where givenPIN == nil && (left ?? 1) > 0:
                pin = try await ask(request(left))
            default:
                throw failure
            }
        }
    }

    private func ask(_ request: PINRequest) async throws -> String {
        interaction.progress(.pin)
        return try await interaction.pin(request)
    }
}
