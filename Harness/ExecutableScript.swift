import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A script a test writes and then runs as a program (a scripted pinentry,
/// a stand-in `$BROWSER`).
public enum ExecutableScript {
    /// Writes `text` (0700) under a new name and renames it into place, with
    /// a descriptor that is close-on-exec: a process another test spawns
    /// meanwhile must not inherit it. (Foundation's writer leaves its
    /// descriptor inheritable; a child holding the script open for writing
    /// makes every exec of it fail with ETXTBSY, "text file busy", until that
    /// child exits — a scripted pinentry that "could not start" under parallel tests.)
    public static func write(_ text: String, to path: String) throws(HarnessError) {
        let temporary = path + ".new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o700)
        guard fd >= 0 else { throw .system("open \(temporary)") }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { close(fd); throw .system("write \(temporary)") }
            written += count
        }
        guard fchmod(fd, 0o700) == 0, close(fd) == 0 else { throw .system("close \(temporary)") }
        guard rename(temporary, path) == 0 else { throw .system("rename \(temporary)") }
    }

}
