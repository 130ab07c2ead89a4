import FoundationEssentials
import SecureFiles
import Locking

/// An open vault: its location, its id and the data key — the one place the
/// key is held while the vault is unlocked.
///
/// Locking is `retire()`: from then on no new use may start, and the key is
/// zeroed at once, or as soon as the uses already running end (a token
/// refresh holds the vault open until its rotated refresh token is saved,
/// at most the HTTP timeout).
public final class UnlockedVault: Sendable {
    public let location: VaultLocation
    public let vaultId: [UInt8]
    private let dataKey: DataKey
    /// Decrypted entries, wiped with the key (EntryCache).
    private let cache = EntryCache()
    private let uses = Locked<(running: Int, retired: Bool)>((0, false))

    init(location: VaultLocation, vaultId: [UInt8], dataKey: DataKey) {
        self.location = location
        self.vaultId = vaultId
        self.dataKey = dataKey
    }

    // MARK: Uses and locking

    /// Starts a use of the key; false once the vault is locked.
    public func beginUse() -> Bool {
        uses.withLock { state in
            guard !state.retired else { return false }
            state.running += 1
            return true
        }
    }

    /// Ends a use; the last use after `retire()` wipes the key.
    public func endUse() {
        let wipe = uses.withLock { state in
            state.running -= 1
            return state.retired && state.running == 0
        }
        if wipe { dataKey.wipe() }
    }

    /// Locks: no new uses; the decrypted entries kept in memory are zeroed
    /// now, the key now or when the running uses end.
    public func retire() {
        cache.wipe()
        let wipe = uses.withLock { state in
            state.retired = true
            return state.running == 0
        }
        if wipe { dataKey.wipe() }
    }

    public var isRetired: Bool { uses.withLock { $0.retired } }
    /// Whether the key has been zeroed (after `retire()` and the last use).
    public var isWiped: Bool { dataKey.isWiped }

    // MARK: Entries

    /// The payload of entry `name`: from memory while its file is unchanged
    /// since it was last read (EntryCache), else read and decrypted.
    public func read(_ name: String) throws(VaultError) -> [UInt8] {
        try EntryRecord.validate(name: name)
        if let kept = cache.payload(name) { return kept }
        let key = try dataKey.symmetricKey()
        let id = EntryRecord.entryId(of: name, dataKey: key, vaultId: vaultId)
        let path = location.entryPath(id: id)
        let read: (bytes: [UInt8], identity: FileIdentity)?
        do {
            read = try SecureFile.readIdentified(path, limit: VaultFormat.maxEntryBytes + EntryRecord.overhead)
        } catch {
            throw VaultLocation.vaultError(error)
        }
        guard let read else { throw .entryNotFound(name) }
        let payload = try EntryRecord.open(read.bytes, path: path, dataKey: key, vaultId: vaultId, expectedId: id).payload
        cache.keep(name, path: path, payload: payload, identity: read.identity)
        return payload
    }

    /// A value made from entry `name`'s payload (`make`, run once per
    /// version of the entry) if the payload is in memory and its file
    /// unchanged — one lstat, no read, no decryption; nil otherwise. Kept
    /// beside the payload, and zeroed with it. For answers given at once, on
    /// the agent's I/O thread.
    public func cachedDerived<Value: KeptBesideEntry>(_ name: String, make: ([UInt8]) -> Value?) throws(VaultError) -> Value? {
        try EntryRecord.validate(name: name)
        guard !isRetired else { throw .closed }
        return cache.derived(name, make: make)
    }

    /// How many decrypted entries are kept in memory (none once locked).
    public var entriesInMemory: Int { cache.count }

    /// Whether entry `name` exists (its file is there; its content is not checked).
    public func contains(_ name: String) throws(VaultError) -> Bool {
        try EntryRecord.validate(name: name)
        let id = EntryRecord.entryId(of: name, dataKey: try dataKey.symmetricKey(), vaultId: vaultId)
        return FileManager.default.fileExists(atPath: location.entryPath(id: id))
    }

    /// Creates or replaces entry `name`, atomically: a crash leaves the old
    /// value or the new one, never a torn file.
    public func write(_ name: String, _ payload: [UInt8]) throws(VaultError) {
        cache.forget(name)
        let key = try dataKey.symmetricKey()
        let sealed = try EntryRecord.seal(name: name, payload: payload, dataKey: key, vaultId: vaultId)
        do {
            try SecureFile.write(sealed.bytes, to: location.entryPath(id: sealed.id))
        } catch {
            throw VaultLocation.vaultError(error)
        }
    }

    /// Removes entry `name`; `.entryNotFound` when there is none.
    public func remove(_ name: String) throws(VaultError) {
        cache.forget(name)
        guard try contains(name) else { throw .entryNotFound(name) }
        let id = EntryRecord.entryId(of: name, dataKey: try dataKey.symmetricKey(), vaultId: vaultId)
        do {
            try SecureFile.remove(location.entryPath(id: id))
        } catch {
            throw VaultLocation.vaultError(error)
        }
    }

    /// One entry as `entries()` finds it: readable, or damaged on its own.
    public enum Listing: Sendable {
        case entry(name: String, payload: [UInt8])
        case damaged(VaultError)
    }

    /// Every entry whose name starts with `prefix`, each decrypted on its
    /// own: a damaged entry is listed as such and does not hide the others.
    public func entries(withPrefix prefix: String = "") throws(VaultError) -> [Listing] {
        let key = try dataKey.symmetricKey()
        var listings: [Listing] = []
        for id in try location.entryIds() {
            let path = location.entryPath(id: id)
            do {
                guard let bytes = try SecureFile.read(path, limit: VaultFormat.maxEntryBytes + EntryRecord.overhead) else {
                    continue  // removed meanwhile
                }
                let entry = try EntryRecord.open(bytes, path: path, dataKey: key, vaultId: vaultId, expectedId: id)
                if entry.name.hasPrefix(prefix) { listings.append(.entry(name: entry.name, payload: entry.payload)) }
            } catch let error as VaultError {
                listings.append(.damaged(error))
            } catch let error as SecureFileError {
                listings.append(.damaged(VaultLocation.vaultError(error)))
            } catch {
                listings.append(.damaged(.unreadable(path: path, reason: "\(error)")))
            }
        }
        return listings
    }

    // MARK: Key slots

    /// What a new slot for this vault is made with: its number and the key to wrap.
    public func enrolmentTarget() throws(VaultError) -> EnrolmentTarget {
        let header = try currentHeader()
        guard header.slots.count < VaultFormat.maxSlots, let id = header.nextSlotId else {
            throw .tooManySlots(limit: VaultFormat.maxSlots)
        }
        _ = try dataKey.symmetricKey()
        return EnrolmentTarget(dataKey: dataKey, vaultId: vaultId, slotId: id)
    }

    /// Adds an enrolled slot to the header (rewritten atomically).
    /// Slot changes apply to the header as it is on disk under its lock
    /// (`VaultLocation.updateHeader`), so another process's change stays.
    public func add(_ slot: KeySlot) throws(VaultError) {
        try location.updateHeader { (header) throws(VaultError) in
            try checkOwnership(of: header)
            guard !header.slots.contains(where: { $0.id == slot.id }) else {
                throw .malformedHeader(path: location.headerPath, reason: "slot \(slot.id) was added meanwhile; add the slot again")
            }
            guard header.slots.count < VaultFormat.maxSlots else { throw .tooManySlots(limit: VaultFormat.maxSlots) }
            header.slots.append(slot)
        }
    }

    /// Removes slot `id`; the last slot is never removed.
    public func removeSlot(_ id: UInt8) throws(VaultError) -> KeySlot {
        var removed: KeySlot?
        try location.updateHeader { (header) throws(VaultError) in
            try checkOwnership(of: header)
            guard let index = header.slots.firstIndex(where: { $0.id == id }) else { throw .noSuchSlot(id) }
            guard header.slots.count > 1 else { throw .lastSlot(id) }
            removed = header.slots.remove(at: index)
        }
        guard let removed else { throw .noSuchSlot(id) }
        return removed
    }

    /// The header as it is on disk now, checked to be this vault's.
    public func currentHeader() throws(VaultError) -> VaultHeader {
        let header = try location.readHeader()
        try checkOwnership(of: header)
        return header
    }

    private func checkOwnership(of header: VaultHeader) throws(VaultError) {
        guard header.vaultId == vaultId else {
            throw .malformedHeader(path: location.headerPath, reason: "it now belongs to another vault (was the vault replaced?); lock and unlock again")
        }
    }
}

/// Everything a new key slot is made from: the data key it wraps, the
/// vault's id and the slot's number (both bound into the wrap's AAD).
public struct EnrolmentTarget: Sendable {
    let dataKey: DataKey
    public let vaultId: [UInt8]
    public let slotId: UInt8

    /// Whether `candidate` (unwrapped through a new slot) is this vault's data key.
    public func confirms(_ candidate: DataKey) -> Bool { dataKey.matches(candidate) }
}
