import Locking
import SecureFiles

/// Decrypted entries kept in memory while the vault is unlocked, so that a
/// `token.get` answered from a stored token reads no file and opens no
/// AES-GCM box (oidc-agent answers from memory too). docs/VAULT.md,
/// "Entries in memory".
///
/// - Each payload is kept with the identity of the file it was read from
///   (`FileIdentity`: device, inode, size, times); it is used only while
///   the entry's path still has that identity (one lstat), so a change by
///   another process — `passkey --no-agent token put`, a restored backup —
///   is read afresh, never masked.
/// - Writes and removals through this vault forget the entry first.
/// - Beside a payload, one value made from it may be kept (`derived`: the
///   `token.get` answer already encoded), dropped with the payload and
///   zeroed with it.
/// - `wipe()` (the vault locking) zeroes the kept bytes and refuses new
///   ones: nothing decrypted outlives the data key in here. Copies already
///   handed out (a reply being written) live as long as that reply, as they
///   always did.
final class EntryCache: Sendable {
    private struct Entry {
        var path: String
        var payload: [UInt8]
        var identity: FileIdentity
        /// Which `keep` this is: a value derived from an older payload is never stored beside a newer one.
        var generation: UInt64
        var derived: (any KeptBesideEntry)?

        mutating func zero() {
            DataKey.zero(&payload)
            derived?.zero()
        }
    }

    private struct State: @unchecked Sendable {
        var entries: [String: Entry] = [:]
        var wiped = false
        var generations: UInt64 = 0
    }

    private let state = Locked(State())

    /// The kept payload of `name`, if its file is still the one it was read from.
    func payload(_ name: String) -> [UInt8]? {
        current(name)?.payload
    }

    /// The value kept beside `name`'s payload, made by `make` from the
    /// payload the first time (nil when `make` gives nil or the payload is
    /// not kept, or no longer current).
    func derived<Value: KeptBesideEntry>(_ name: String, make: ([UInt8]) -> Value?) -> Value? {
        guard let entry = current(name) else { return nil }
        if let kept = entry.derived as? Value { return kept }
        guard let made = make(entry.payload) else { return nil }
        state.withLock { state in
            guard !state.wiped, state.entries[name]?.generation == entry.generation else { return }
            state.entries[name]?.derived = made
        }
        return made
    }

    func keep(_ name: String, path: String, payload: [UInt8], identity: FileIdentity) {
        var replaced = state.withLock { state -> Entry? in
            guard !state.wiped else { return nil }
            state.generations &+= 1
            return state.entries.updateValue(Entry(path: path, payload: payload, identity: identity, generation: state.generations, derived: nil),
                                             forKey: name)
        }
        replaced?.zero()
    }

    func forget(_ name: String) {
        guard var removed = state.withLock({ $0.entries.removeValue(forKey: name) }) else { return }
        removed.zero()
    }

    /// `name`'s entry if its file still has the identity it was read with;
    /// otherwise that entry is forgotten (unless a newer one took its place meanwhile).
    private func current(_ name: String) -> Entry? {
        guard let entry = state.withLock({ $0.entries[name] }) else { return nil }
        guard FileIdentity.current(of: entry.path) == entry.identity else {
            var stale = state.withLock { state -> Entry? in
                guard state.entries[name]?.generation == entry.generation else { return nil }
                return state.entries.removeValue(forKey: name)
            }
            stale?.zero()
            return nil
        }
        return entry
    }

    /// Zeroes and drops every kept payload; nothing is kept from now on.
    func wipe() {
        var entries = state.withLock { state -> [String: Entry] in
            state.wiped = true
            defer { state.entries = [:] }
            return state.entries
        }
        for name in Array(entries.keys) { entries[name]!.zero() }
    }

    var count: Int { state.withLock { $0.entries.count } }
}

/// A value made from a kept entry and kept beside it (EntryCache.derived):
/// it holds decrypted bytes, so it zeroes them when the entry goes.
public protocol KeptBesideEntry: Sendable {
    mutating func zero()
}
