/// A first-come, first-served lock for async code: operations on one
/// authenticator wait their turn in order, without blocking a thread.
package actor AsyncSerialLock {
    package init() {}

    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    package func acquire() async {
        if !busy { busy = true; return }
        await withCheckedContinuation { waiters.append($0) }
    }

    package func release() {
        if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
    }

    package func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        do {
            let value = try await body()
            release()
            return value
        } catch {
            release()
            throw error
        }
    }

    /// How many operations are queued behind the one that runs.
    package var queued: Int { waiters.count }
}
