#if canImport(Glibc)
import Glibc
#endif

/// A `sockaddr_un` for `path`, the one way the harness's clients and listeners spell it.
public enum UnixSocketAddress {
    /// Calls `body` with the address of `path` and its length (bind/connect);
    /// a path too long for `sun_path` (with its NUL) is refused, not cut short.
    public static func with<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) throws(HarnessError) -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            throw HarnessError("socket path \(path) is longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// A Unix stream socket bound at `path` and listening, on an fd above 3
    /// (so that handing it over as fd 3 always clears close-on-exec).
    public static func listen(at path: String, backlog: Int32 = 64) throws(HarnessError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .system("socket()") }
        let bound: Int32
        do { bound = try with(path) { bind(fd, $0, $1) } } catch {
            close(fd)
            throw error
        }
        guard bound == 0, Glibc.listen(fd, backlog) == 0 else {
            let failure = HarnessError.system("cannot listen on \(path)")
            close(fd)
            throw failure
        }
        let moved = fcntl(fd, F_DUPFD_CLOEXEC, 10)
        close(fd)
        guard moved >= 0 else { throw .system("fcntl(F_DUPFD_CLOEXEC)") }
        return moved
    }
}
