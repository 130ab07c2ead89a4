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
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let owner: UInt32
    let mode: UInt32
    let modified: Int64
    let modifiedNanoseconds: Int
    let changed: Int64
    let changedNanoseconds: Int

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        owner = info.st_uid
        mode = info.st_mode
        modified = Int64(info.st_mtim.tv_sec)
        modifiedNanoseconds = info.st_mtim.tv_nsec
        changed = Int64(info.st_ctim.tv_sec)
        changedNanoseconds = info.st_ctim.tv_nsec
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
