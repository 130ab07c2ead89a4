import AgentRuntime
import Locking

/// One writer at a time per token account: a `token.put` or `token.delete`
/// waits for a refresh of the same account in flight (and the other way
/// round), so a refresh that started from the old tokens can never
/// overwrite tokens stored meanwhile. Accounts nobody is using hold no lock.
package final class AccountLocks: Sendable {
    private let locks = Locked<[String: (lock: AsyncSerialLock, users: Int)]>([:])

    package func withLock<T: Sendable>(_ account: String, _ body: @Sendable () async throws -> T) async throws -> T {
        let lock = locks.withLock { locks -> AsyncSerialLock in
            let entry = locks[account] ?? (AsyncSerialLock(), 0)
            locks[account] = (entry.lock, entry.users + 1)
            return entry.lock
        }
        defer {
            locks.withLock { locks in
                guard let entry = locks[account] else { return }
                locks[account] = entry.users > 1 ? (entry.lock, entry.users - 1) : nil
            }
        }
        return try await lock.withLock(body)
    }
}
