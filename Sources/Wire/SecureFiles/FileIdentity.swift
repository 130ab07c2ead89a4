#if canImport(Glibc)
import Glibc
#endif

/// Which file a path names, and which version of it: device, inode, size,
/// owner, mode, and the modification and status-change times to the
/// nanosecond. Our writers replace a file by rename (a new inode), and any
/// other change to a file moves its ctime, so a path whose identity is the
/// same as when its bytes were read still holds those bytes. The vault keeps
/// decrypted entries in memory on that ground (Vault's EntryCache).
public struct FileIdentity: Equatable, Sendable {
    // The stat fields as the kernel gives them: compared, never converted.
    let device: dev_t
    let inode: ino_t
    let size: off_t
    let owner: uid_t
    let mode: mode_t
    let modified: timespec
    let changed: timespec

    init(_ info: stat) {
        device = info.st_dev
        inode = info.st_ino
        size = info.st_size
        owner = info.st_uid
        mode = info.st_mode
        modified = info.st_mtim
        changed = info.st_ctim
    }

    public static func == (a: FileIdentity, b: FileIdentity) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size && a.owner == b.owner && a.mode == b.mode
            && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
            && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
    }

    /// The identity of what `path` names now, without following a final
    /// symlink (lstat: metadata only, the file is not opened); nil when
    /// nothing is there or it cannot be looked at.
    public static func current(of path: String) -> FileIdentity? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return FileIdentity(info)
    }

    /// The identity of an open file.
    static func of(descriptor: Int32) -> FileIdentity? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return FileIdentity(info)
    }
}
