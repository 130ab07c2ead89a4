#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The state file in the data directory, written atomically: a temporary
/// file (0600) is written and fsynced, renamed over the old one, and the
/// directory fsynced, so a crash leaves the old state or the new, never a
/// torn one. The directory is 0700; the file holds the app's secret.
///
/// A lock file (flock) keeps a second devserver off the same directory.
final class StateFile: Sendable {
    static let fileName = "devserver.json"
    static let lockName = "devserver.lock"
    /// A state file larger than this is refused rather than read into memory.
    static let maxSize = 64 * 1024 * 1024

    let directory: String
    var path: String { directory + "/" + Self.fileName }
    private let lockDescriptor: Int32

    /// Creates the directory (0700) when missing, refuses one that others can
    /// read, and takes the lock.
    init(directory: String) throws(DevServerError) {
        self.directory = directory
        var info = stat()
        if stat(directory, &info) != 0 {
            guard errno == ENOENT else { throw .dataDirectory(path: directory, reason: Self.lastError()) }
            guard mkdir(directory, 0o700) == 0 else { throw .dataDirectory(path: directory, reason: Self.lastError()) }
            guard stat(directory, &info) == 0 else { throw .dataDirectory(path: directory, reason: Self.lastError()) }
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw .dataDirectory(path: directory, reason: "not a directory") }
        guard info.st_uid == getuid() else { throw .dataDirectory(path: directory, reason: "owned by another user") }
        guard info.st_mode & 0o077 == 0 else {
            throw .dataDirectory(path: directory, reason: "mode \(Self.octal(info.st_mode)) lets other users in; run chmod 700 on it")
        }
        let lockPath = directory + "/" + Self.lockName
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .dataDirectory(path: directory, reason: "lock file: \(Self.lastError())") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw .dataDirectoryInUse(path: directory)
        }
        lockDescriptor = descriptor
    }

    deinit { close(lockDescriptor) }

    /// Lets another devserver take the directory once this one has stopped.
    func unlock() {
        flock(lockDescriptor, LOCK_UN)
    }

    /// The file's bytes, or nil when there is no state yet.
    func load() throws(DevServerError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw .stateFile(path: path, reason: Self.lastError())
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .stateFile(path: path, reason: Self.lastError()) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .stateFile(path: path, reason: "not a regular file") }
        guard info.st_mode & 0o077 == 0 else {
            throw .stateFile(path: path, reason: "mode \(Self.octal(info.st_mode)) lets other users read the secret; run chmod 600 on it")
        }
        guard Int(info.st_size) <= Self.maxSize else { throw .stateFile(path: path, reason: "larger than \(Self.maxSize) bytes") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .stateFile(path: path, reason: Self.lastError())
            }
            if count == 0 { break }
            offset += count
        }
        guard offset == bytes.count else { throw .stateFile(path: path, reason: "the file shrank while being read") }
        return bytes
    }

    /// Replaces the file atomically with `bytes`.
    func save(_ bytes: [UInt8]) throws(DevServerError) {
        let temporary = directory + "/." + Self.fileName + ".tmp-\(getpid())"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .stateFile(path: temporary, reason: Self.lastError()) }
        var succeeded = false
        defer {
            if !succeeded { unlink(temporary) }
        }
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = Self.lastError()
                close(descriptor)
                throw .stateFile(path: temporary, reason: reason)
            }
            offset += count
        }
        guard fsync(descriptor) == 0 else {
            let reason = Self.lastError()
            close(descriptor)
            throw .stateFile(path: temporary, reason: "fsync: \(reason)")
        }
        guard close(descriptor) == 0 else { throw .stateFile(path: temporary, reason: Self.lastError()) }
        guard rename(temporary, path) == 0 else { throw .stateFile(path: path, reason: "rename: \(Self.lastError())") }
        succeeded = true
        // The rename is durable only once the directory entry is on disk.
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else { throw .dataDirectory(path: directory, reason: Self.lastError()) }
        defer { close(directoryDescriptor) }
        guard fsync(directoryDescriptor) == 0 else { throw .dataDirectory(path: directory, reason: "fsync: \(Self.lastError())") }
    }

    private static func octal(_ mode: mode_t) -> String {
        String(mode & 0o777, radix: 8)
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
