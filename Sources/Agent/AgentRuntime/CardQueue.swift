import Dispatch
import PIV
import Vault

/// Runs blocking PC/SC work (a card's commands, each a round trip through
/// pcscd) on a thread of its own, one operation at a time, so it never
/// blocks the Swift concurrency pool.
enum CardQueue {
    fileprivate static let queue = DispatchQueue(label: "passkey.agent.card")

    static func run<T: Sendable>(_ body: @escaping @Sendable () throws(VaultError) -> T) async throws(VaultError) -> T {
        let result: Result<T, VaultError> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { () throws(VaultError) -> T in try body() })
            }
        }
        return try result.get()
    }
}

extension CardQueue {
    /// The same queue for the card verbs, whose errors are `PIVError`s.
    static func piv<T: Sendable>(_ body: @escaping @Sendable () throws(PIVError) -> T) async throws(PIVError) -> T {
        let result: Result<T, PIVError> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { () throws(PIVError) -> T in try body() })
            }
        }
        return try result.get()
    }
}
