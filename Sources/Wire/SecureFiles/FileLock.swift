#if canImport(Glibc)
import Glibc
#endif

/// An exclusive flock(2) on a lock file (created 0600), taken and released
/// as often as needed. It keeps a second process — or a second holder in
/// this one, since each open file is locked on its own — off whatever the
/// file guards; the kernel drops it when the process dies.
///
/// The lock file also holds a generation number (8 bytes): a writer that
/// replaces the guarded file advances it while holding the lock, so another
/// process can tell, under the lock and without reading the guarded file,
/// whether it changed since it last looked. Inode numbers and timestamps
/// cannot tell that reliably: inodes are reused, timestamps are coarse.
public final class FileLock: Sendable {
    public let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Opens (or creates, 0600) the lock file without locking it. An existing
    /// one must be a regular file of ours that no one else may change: a lock
    /// file others can replace or hold open is no lock.
    public static func open(_ path: String) throws(SecureFileError) -> FileLock {
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            if code == ELOOP { throw .notPrivate(path: path, reason: "it is a symbolic link, which is not followed") }
            throw .notWritable(path: path, reason: SecureFileError.text(code))
        }
        do {
            try TrustedOpen.check(descriptor, path: path, trust: .ownedByUs, limit: 4096)
        } catch {
            close(descriptor)
            throw error
        }
        return FileLock(path: path, descriptor: descriptor)
    }

    /// Takes the lock without waiting; nil when someone else holds it.
    public static func acquire(_ path: String) throws(SecureFileError) -> FileLock? {
        let lock = try open(path)
        return try lock.tryLock() ? lock : nil
    }

    /// Takes the lock if it is free; false when someone else holds it.
    public func tryLock() throws(SecureFileError) -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == EWOULDBLOCK { return false }
            throw .notWritable(path: path, reason: "cannot lock it: " + SecureFileError.text(code))
        }
        return true
    }

    /// Takes the lock, waiting for its holder at most `seconds`. Holders keep
    /// it for one read-change-write, milliseconds; a holder that keeps it
    /// longer is stuck (or stopped), and waiting on would hang the caller.
    public func lock(waitingAtMost seconds: Int = 10) throws(SecureFileError) {
        let deadline = Self.monotonicNanoseconds() + Int64(min(max(seconds, 0), 3600)) * 1_000_000_000
        var pause: Int = 1_000_000  // 1 ms, doubling up to 50 ms
        while try !tryLock() {
            guard Self.monotonicNanoseconds() < deadline else {
                throw .notWritable(path: path, reason: "another process has held its lock for more than \(seconds) s")
            }
            var interval = timespec(tv_sec: 0, tv_nsec: pause)
            nanosleep(&interval, nil)
            pause = min(pause * 2, 50_000_000)
        }
    }

    /// Lets the next holder in; the file itself stays.
    public func release() {
        flock(descriptor, LOCK_UN)
    }

    /// The generation number (0 for a new lock file). Read it while holding the lock.
    public func generation() -> UInt64 {
        var value: UInt64 = 0
        let count = withUnsafeMutableBytes(of: &value) { pread(descriptor, $0.baseAddress, 8, 0) }
        return count == 8 ? UInt64(littleEndian: value) : 0
    }

    /// Advances the generation number; call it while holding the lock,
    /// before replacing the guarded file (a crash in between then costs
    /// the others a needless re-read, never a missed change).
    @discardableResult
    public func advanceGeneration() throws(SecureFileError) -> UInt64 {
        let next = generation() &+ 1
        var value = next.littleEndian
        let count = withUnsafeBytes(of: &value) { pwrite(descriptor, $0.baseAddress, 8, 0) }
        guard count == 8 else { throw .notWritable(path: path, reason: SecureFileError.text(errno)) }
        return next
    }

    private static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
    }

    deinit { close(descriptor) }
}
