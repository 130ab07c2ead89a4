import Dispatch

/// Runs blocking PC/SC work (a card's commands, each a round trip through
/// pcscd) on a thread of its own, one operation at a time, so it never
/// blocks the Swift concurrency pool: the vault's card unlock and the card
/// methods share it.
package enum CardQueue {
    private static let queue = DispatchQueue(label: "passkey.agent.card")

    package static func run<T: Sendable, Failure: Error>(_ body: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
        let result: Result<T, Failure> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { () throws(Failure) -> T in try body() })
            }
        }
        return try result.get()
    }
}
