#if canImport(Glibc)
import Glibc
#endif

/// How much a file must be ours before it is read.
public enum FileTrust: Sendable {
    /// Ours and changeable by us alone: a regular file, owned by this user,
    /// not writable by group or others. Others may read it — for files whose
    /// content is public or already encrypted (the vault's header and entries).
    case ownedByUs
    /// As `ownedByUs`, and closed to group and others altogether (mode 0600
    /// or stricter): for files that hold secrets in the clear.
    case privateToUs
    /// A configuration file, read the way ssh reads ~/.ssh/config: it may be
    /// a symlink (dotfile managers make those) and root may own it, but it
    /// must end at a regular file nobody else may change — it names devices,
    /// state files and servers, so another user able to change it could
    /// redirect them.
    case configuration
}

/// The one way files in our directories are opened for reading.
///
/// Everything in the XDG directories may have been put there by someone
/// else, so the open itself must not be steerable: O_NOFOLLOW refuses a final
/// symlink (which could redirect the read to any file), O_NONBLOCK keeps a
/// FIFO or a device from hanging the open (and with it the thread, the vault
/// and even SIGTERM handling), and fstat on the opened descriptor — not stat
/// on the name, which could be swapped in between — checks what was opened.
enum TrustedOpen {
    /// A descriptor for reading `path` (O_CLOEXEC, blocking again), or nil
    /// when the file does not exist.
    static func forReading(_ path: String, trust: FileTrust, limit: Int) throws(SecureFileError) -> Int32? {
        let noFollow = trust == .configuration ? 0 : O_NOFOLLOW
        let descriptor = open(path, O_RDONLY | noFollow | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        if descriptor < 0 {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { throw .notPrivate(path: path, reason: "it is a symbolic link, which is not followed") }
            throw .unreadable(path: path, reason: SecureFileError.text(code))
        }
        do {
            try check(descriptor, path: path, trust: trust, limit: limit)
            try makeBlocking(descriptor, path: path)
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Refuses anything but a regular file of ours that only we may change
    /// (and, for `.privateToUs`, only we may read), no larger than `limit`.
    static func check(_ descriptor: Int32, path: String, trust: FileTrust, limit: Int) throws(SecureFileError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .unreadable(path: path, reason: SecureFileError.text(errno)) }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else {
            throw .notPrivate(path: path, reason: "it is \(describe(kind)), not a regular file")
        }
        let me = geteuid()
        guard info.st_uid == me || (trust == .configuration && info.st_uid == 0) else {
            throw .notPrivate(path: path, reason: "it is owned by uid \(info.st_uid), not by this user (uid \(me))")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw .notPrivate(path: path,
                              reason: "mode \(SecureFile.octal(info.st_mode)) lets other users change it; run chmod 600 on it")
        }
        if trust == .privateToUs {
            guard info.st_mode & 0o077 == 0 else {
                throw .notPrivate(path: path,
                                  reason: "mode \(SecureFile.octal(info.st_mode)) lets other users read it; run chmod 600 on it")
            }
        }
        // st_size is an off_t from the kernel; compared without converting, so no value traps.
        guard info.st_size <= off_t(limit) else { throw .tooLarge(path: path, limit: limit) }
    }

    /// O_NONBLOCK was for the open only; reads of a regular file then behave as usual.
    private static func makeBlocking(_ descriptor: Int32, path: String) throws(SecureFileError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            throw .unreadable(path: path, reason: SecureFileError.text(errno))
        }
    }

    private static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFIFO: return "a FIFO"
        case S_IFDIR: return "a directory"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFLNK: return "a symbolic link"
        default: return "a special file"
        }
    }
}
