import Crypto
import FoundationEssentials
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// The vault's data key while the vault is open: 32 bytes in one buffer of
/// their own, locked in memory (so they are never written to swap) and
/// zeroed by `wipe()`. Every use makes a short-lived `SymmetricKey` copy,
/// which swift-crypto zeroes when it is released.
public final class DataKey: Sendable {
    private struct Storage: @unchecked Sendable {
        let buffer: UnsafeMutableRawBufferPointer
        var wiped = false
    }

    private let storage: Locked<Storage>

    private init(fill: (UnsafeMutableRawBufferPointer) -> Void) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: VaultFormat.dataKeyLength, alignment: 16)
        // Best effort: without RLIMIT_MEMLOCK room the key still works, it may just reach swap.
        _ = mlock(buffer.baseAddress, buffer.count)
        fill(buffer)
        storage = Locked(Storage(buffer: buffer))
    }

    deinit {
        storage.withLock { storage in
            Self.zero(storage.buffer)
            munlock(storage.buffer.baseAddress, storage.buffer.count)
            storage.buffer.deallocate()
        }
    }

    /// A new key from the system's random number generator.
    public static func random() -> DataKey {
        DataKey { buffer in
            var generator = SystemRandomNumberGenerator()
            for offset in stride(from: 0, to: buffer.count, by: 8) {
                buffer.storeBytes(of: generator.next() as UInt64, toByteOffset: offset, as: UInt64.self)
            }
        }
    }

    /// Takes the key out of `bytes` (32 of them), zeroing them.
    convenience init(taking bytes: inout [UInt8]) throws(VaultError) {
        guard bytes.count == VaultFormat.dataKeyLength else {
            Self.zero(&bytes)
            throw .malformedHeader(path: "(key slot)", reason: "an unwrapped data key of \(bytes.count) bytes, not 32")
        }
        let source = bytes
        self.init { buffer in buffer.copyBytes(from: source) }
        Self.zero(&bytes)
    }

    /// The key for one operation; `.closed` once wiped.
    func symmetricKey() throws(VaultError) -> SymmetricKey {
        let key: SymmetricKey? = storage.withLock { storage in
            storage.wiped ? nil : SymmetricKey(data: UnsafeRawBufferPointer(storage.buffer))
        }
        guard let key else { throw .closed }
        return key
    }

    /// Runs `body` on the raw key bytes (to wrap them for a new slot).
    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        try storage.withLock { storage in
            guard !storage.wiped else { throw VaultError.closed }
            return try body(UnsafeRawBufferPointer(storage.buffer))
        }
    }

    /// Whether `other` holds the same key (constant time).
    func matches(_ other: DataKey) -> Bool {
        guard let mine = try? symmetricKey(), let theirs = try? other.symmetricKey() else { return false }
        return mine == theirs
    }

    /// Zeroes the key. Every later use fails with `.closed`.
    public func wipe() {
        storage.withLock { storage in
            Self.zero(storage.buffer)
            storage.wiped = true
        }
    }

    public var isWiped: Bool { storage.withLock { $0.wiped } }

    /// Zeroes memory in a way the optimiser may not remove.
    static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        explicit_bzero(base, buffer.count)
    }

    public static func zero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { zero($0) }
    }
}
