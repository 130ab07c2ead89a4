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
/// - `wipe()` (the vault locking) zeroes the kept bytes and refuses new
///   ones: nothing decrypted outlives the data key in here. Copies already
///   handed out (a reply being written) live as long as that reply, as they
///   always did.
final class EntryCache: Sendable {
    private struct Entry {
        var path: String
        var payload: [UInt8]
        var identity: FileIdentity
    }

    private struct State: @unchecked Sendable {
        var entries: [String: Entry] = [:]
        var wiped = false
    }

    private let state = Locked(State())

    /// The kept payload of `name`, if its file is still the one it was read from.
    func payload(_ name: String) -> [UInt8]? {
        guard let entry = state.withLock({ $0.entries[name] }) else { return nil }
        guard FileIdentity.current(of: entry.path) == entry.identity else {
            forget(name)
            return nil
        }
        return entry.payload
    }

    func keep(_ name: String, path: String, payload: [UInt8], identity: FileIdentity) {
        state.withLock { state in
            guard !state.wiped else { return }
            state.entries[name] = Entry(path: path, payload: payload, identity: identity)
        }
    }

    func forget(_ name: String) {
        guard var removed = state.withLock({ $0.entries.removeValue(forKey: name) }) else { return }
        DataKey.zero(&removed.payload)
    }

    /// Zeroes and drops every kept payload; nothing is kept from now on.
    func wipe() {
        var entries = state.withLock { state -> [String: Entry] in
            state.wiped = true
            defer { state.entries = [:] }
            return state.entries
        }
        for name in Array(entries.keys) { DataKey.zero(&entries[name]!.payload) }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
