import AgentProtocol
import AgentRuntime
import Locking
import Settings
import Vault

/// The vault's lock state — the one place the open vault (and with it the
/// data key) is held. It locks on `agent.lock`, SIGHUP, the idle timeout and
/// the removal of the PIV card that unlocked it; locking wipes the key.
package final class VaultService: Sendable {
    package let location: VaultLocation
    /// One key-slot operation (unlock, init, adding or removing a slot) at a time.
    package let slotOperations = AsyncSerialLock()
    private let runningAsAgent: Bool
    private let idleTimeout: Locked<Duration?>
    private let state = Locked(State())

    private struct State: @unchecked Sendable {
        var open: UnlockedVault?
        package var unlockedWith: UInt8?
        package var lastUse = ContinuousClock.now
        package var watch: CardPresenceWatch?
        package var idleTask: Task<Void, Never>?
        /// Why the vault last locked ("idle for 900 s", "the card was removed …").
        package var lockReason: String?
        /// Counts unlocks, so a watcher or timer of an earlier unlock never locks a later one.
        package var generation = 0
    }

    /// `idleTimeout` nil or zero: never lock for inactivity.
    package init(location: VaultLocation, idleTimeout: Duration?, runningAsAgent: Bool) {
        self.location = location
        self.runningAsAgent = runningAsAgent
        self.idleTimeout = Locked(Self.effectiveIdleTimeout(idleTimeout))
    }

    /// The longest idle timeout kept: ten years, which is "never" for a
    /// running agent, and the most `passkey-agent --idle-timeout` accepts.
    /// config.toml (read at start and on every change) can say more
    /// (`idle-timeout = 9223372036854775807`): that is cut to this, because
    /// the timer's deadline, `now + timeout`, must stay an instant the clock
    /// can sleep until — past 2^63 s the concurrency runtime traps
    /// converting it, and the agent would die at the first unlock.
    package static let maximumIdleTimeout = Duration.seconds(10 * 365 * 86_400)

    /// nil for nil, zero or negative (never lock for inactivity); else at most ten years.
    package static func effectiveIdleTimeout(_ timeout: Duration?) -> Duration? {
        guard let timeout, timeout > .zero else { return nil }
        return min(timeout, maximumIdleTimeout)
    }

    /// The vault under the agent's data directory; the idle timeout from
    /// `[agent] idle-timeout` in config.toml (default 15 minutes; 0: never;
    /// at most `maximumIdleTimeout`).
    package convenience init(paths: AgentPaths, settings: Settings, runningAsAgent: Bool) {
        let seconds = settings.agent.idleTimeoutSeconds ?? Self.defaultIdleTimeoutSeconds
        self.init(location: VaultLocation(dataDirectory: paths.dataDirectory),
                  idleTimeout: seconds > 0 ? .seconds(seconds) : nil, runningAsAgent: runningAsAgent)
    }

    package static let defaultIdleTimeoutSeconds = 15 * 60

    package var idleLockSeconds: Int? {
        guard runningAsAgent else { return nil }
        return idleTimeout.withLock { $0 }.map { Int($0.components.seconds) }
    }

    package func setIdleTimeout(_ timeout: Duration?) {
        idleTimeout.withLock { $0 = Self.effectiveIdleTimeout(timeout) }
        let generation = state.withLock { $0.open == nil ? nil : $0.generation }
        if let generation { restartIdleTimer(generation: generation) }
    }

    // MARK: Unlocking and locking

    /// Holds `vault` open (replacing any vault open before). `cardReader`:
    /// the reader of the PIV card that opened it, watched so that removing
    /// the card locks the vault.
    /// A card that cannot be watched cannot be trusted to stay: then the
    /// vault is not held open, and the error says why.
    package func install(_ vault: UnlockedVault, slot: UInt8, cardReader: String?) throws(VaultError) {
        let generation = state.withLock { state -> Int in
            state.generation += 1
            return state.generation
        }
        var watch: CardPresenceWatch?
        if let cardReader, runningAsAgent {
            do {
                watch = try CardPresenceWatch.start(readerName: cardReader) { [weak self] reason in
                    self?.lock(reason: reason, onlyGeneration: generation)
                }
            } catch {
                vault.retire()
                throw error
            }
        }
        let replaced = state.withLock { state -> (UnlockedVault?, CardPresenceWatch?, Task<Void, Never>?) in
            let old = (state.open, state.watch, state.idleTask)
            state.open = vault
            state.unlockedWith = slot
            state.watch = watch
            state.idleTask = nil
            state.lastUse = .now
            state.lockReason = nil
            return old
        }
        replaced.0?.retire()
        replaced.1?.stop()
        replaced.2?.cancel()
        restartIdleTimer(generation: generation)
    }

    /// Locks (wiping the key); false when it was not unlocked.
    @discardableResult
    package func lock(reason: String, onlyGeneration: Int? = nil) -> Bool {
        let closed = state.withLock { state -> (UnlockedVault, CardPresenceWatch?, Task<Void, Never>?)? in
            guard let open = state.open else { return nil }
            if let onlyGeneration, onlyGeneration != state.generation { return nil }
            let closing = (open, state.watch, state.idleTask)
            state.open = nil
            state.unlockedWith = nil
            state.watch = nil
            state.idleTask = nil
            state.lockReason = reason
            state.generation += 1
            return closing
        }
        guard let closed else { return false }
        closed.0.retire()
        closed.1?.stop()
        closed.2?.cancel()
        return true
    }

    /// Runs `body` with the open vault, which stays open (its key unwiped)
    /// until `body` ends even if a lock comes meanwhile. Throws `locked`.
    package func withUnlocked<T: Sendable>(_ body: (UnlockedVault) async throws -> T) async throws -> T {
        let vault = try beginUse()
        defer { endUse(vault) }
        return try await body(vault)
    }

    /// As `withUnlocked`, for a body that never waits (the fast path of
    /// `token.get`, run on the I/O thread).
    package func withUnlockedNow<T>(_ body: (UnlockedVault) throws -> T) throws -> T {
        let vault = try beginUse()
        defer { endUse(vault) }
        return try body(vault)
    }

    /// A use of the open vault starts (counting as activity for the idle
    /// timer); `locked` when there is none.
    private func beginUse() throws -> UnlockedVault {
        let vault = state.withLock { state -> UnlockedVault? in
            state.lastUse = .now
            return state.open
        }
        guard let vault, vault.beginUse() else { throw lockedError() }
        return vault
    }

    private func endUse(_ vault: UnlockedVault) {
        vault.endUse()
        state.withLock { $0.lastUse = .now }
    }

    package var isUnlocked: Bool { state.withLock { $0.open != nil } }
    package var unlockedWith: UInt8? { state.withLock { $0.unlockedWith } }
    package var lockReason: String? { state.withLock { $0.lockReason } }

    package func lockedError() -> AgentError {
        guard location.exists else {
            return AgentError(vault: .notInitialized(path: location.directory))
        }
        if runningAsAgent {
            return AgentError(.locked, "the vault is locked: unlock it with `passkey unlock`")
        }
        return AgentError(.locked, "the vault is locked, and no passkey-agent is running to keep it unlocked: "
                          + "start one (`eval $(passkey-agent)`) and run `passkey unlock`")
    }

    // MARK: The idle timer

    private func restartIdleTimer(generation: Int) {
        guard runningAsAgent, let timeout = idleTimeout.withLock({ $0 }) else { return }
        let task = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                let deadline = self.state.withLock { state -> ContinuousClock.Instant? in
                    state.generation == generation && state.open != nil ? state.lastUse + timeout : nil
                }
                guard let deadline else { return }
                if ContinuousClock.now >= deadline {
                    self.lock(reason: "idle for \(timeout.components.seconds) s", onlyGeneration: generation)
                    return
                }
                try? await Task.sleep(until: deadline, clock: .continuous)
            }
        }
        let previous = state.withLock { state -> Task<Void, Never>? in
            guard state.generation == generation else { return task }
            let previous = state.idleTask
            state.idleTask = task
            return previous
        }
        previous?.cancel()
    }
}
