import FIDO
import Interaction

extension PINExchange {
    /// A ceremony's request on the key through the one PIN loop
    /// (`run(on:)`, which also falls back from a fingerprint the key did not
    /// recognise to its PIN); the key's failures become `CeremonyError.authenticator`.
    func ceremony<T>(on device: FIDODevice, needsPIN: Bool, reason: String,
                     _ body: (_ pin: String?) async throws(FIDOError) -> T) async throws -> T {
        do {
            return try await run(on: device, needsPIN: needsPIN, reason: "The security key needs its PIN \(reason).",
                                 attempt: body)
        } catch let error as FIDOError {
            throw CeremonyError.authenticator(error)
        }
    }
}
