#if canImport(Glibc)
import Glibc
#endif

/// The names of the temporary files atomic writes use, and the removal of
/// those a crashed writer left behind.
///
/// A temporary file is `.<target>.tmp-<pid>-<16 hex digits>` beside its
/// target. Its writer holds an flock on it from just after creating it until
/// the name is gone (renamed or unlinked), and the kernel drops that lock
/// when the writer dies. So a temporary file is stale when no one holds its
/// lock — a writer in another process, even one stopped in a debugger,
/// still holds it — and it is older than `minimumAge`, which covers the
/// microseconds between a writer's create and its flock.
public enum TemporaryName {
    public static let minimumAge: Int = 5

    static func make(for target: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let suffix = UInt64.random(in: 0...UInt64.max, using: &generator)
        return "." + target + ".tmp-\(getpid())-" + String(suffix, radix: 16)
    }

    /// Whether `name` is one of ours (`target` nil: for any target).
    static func matches(_ name: String, target: String?) -> Bool {
        let utf8 = Array(name.utf8)
        guard utf8.first == UInt8(ascii: "."), let marker = lastRange(of: Array(".tmp-".utf8), in: utf8) else { return false }
        let base = utf8[1..<marker.lowerBound]
        if let target { guard Array(base) == Array(target.utf8) else { return false } } else if base.isEmpty { return false }
        let tail = utf8[marker.upperBound...].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard tail.count == 2, (1...10).contains(tail[0].count), (1...16).contains(tail[1].count) else { return false }
        let decimal = tail[0].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        let hex = tail[1].allSatisfy {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
        }
        return decimal && hex
    }

    private static func lastRange(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        guard haystack.count >= needle.count else { return nil }
        var start = haystack.count - needle.count
        while start >= 1 {
            if Array(haystack[start..<start + needle.count]) == needle { return start..<start + needle.count }
            start -= 1
        }
        return nil
    }
}

extension SecureFile {
    /// Removes the stale temporary files in `directory` (of `target` only,
    /// when given); returns how many went. Only regular files of this user
    /// that match our naming pattern are considered, and a file whose lock a
    /// live writer holds is never touched. Best effort: what cannot be
    /// examined stays.
    @discardableResult
    public static func removeStaleTemporaryFiles(in directory: String, target: String? = nil) -> Int {
        guard let names = DirectoryEntries.names(in: directory) else { return 0 }
        var removed = 0
        for name in names where TemporaryName.matches(name, target: target) && removeIfStale(directory + "/" + name) {
            removed += 1
        }
        return removed
    }

    private static func removeIfStale(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else { return false }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let age = now.tv_sec.subtractingReportingOverflow(info.st_mtim.tv_sec)
        guard !age.overflow, age.partialValue >= TemporaryName.minimumAge else { return false }
        // Our lock, if we get it, is held across the unlink: no writer can be mid-write.
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        return unlink(path) == 0
    }
}
