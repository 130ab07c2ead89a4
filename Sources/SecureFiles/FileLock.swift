#if canImport(Glibc)
import Glibc
#endif

/// An exclusive flock(2) on a lock file (created 0600), held until `release()`
/// or until the lock goes away. It keeps a second process — or a second
/// holder in this one, since each open file is locked on its own — off
/// whatever the file guards; the kernel drops it when the process dies.
public final class FileLock: Sendable {
    public let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Takes the lock without waiting; nil when someone else holds it.
    public static func acquire(_ path: String) throws(SecureFileError) -> FileLock? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .notWritable(path: path, reason: SecureFileError.text(errno)) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK { return nil }
            throw .notWritable(path: path, reason: "cannot lock it: " + SecureFileError.text(code))
        }
        return FileLock(path: path, descriptor: descriptor)
    }

    /// Lets the next holder in; the file itself stays.
    public func release() {
        flock(descriptor, LOCK_UN)
    }

    deinit { close(descriptor) }
}
