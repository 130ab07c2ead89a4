#if canImport(Glibc)
import Glibc
#endif

/// A `sockaddr_un` for `path`, the one way test clients and listeners spell it.
public enum UnixSocketAddress {
    /// Calls `body` with the address of `path` and its length (bind/connect).
    public static func with<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let count = min(path.utf8.count, raw.count - 1)
            raw.copyBytes(from: path.utf8.prefix(count))
            raw[count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
