#if canImport(Glibc)
import Glibc
#endif

/// systemd socket activation (sd_listen_fds(3)): when LISTEN_PID is this
/// process and LISTEN_FDS ≥ 1, the listening socket is fd 3. It is used as
/// is — never re-bound, never unlinked.
public enum SocketActivation {
    public static let firstDescriptor: Int32 = 3

    /// The activated listening descriptor, or nil when not socket-activated.
    /// Clears LISTEN_* so that child processes do not think they are activated.
    public static func listeningDescriptor(environment: [String: String]) -> Int32? {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pid = environment["LISTEN_PID"].flatMap({ Int32($0) }), pid == getpid(),
              let count = environment["LISTEN_FDS"].flatMap({ Int($0) }), count >= 1 else { return nil }
        let fd = firstDescriptor
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }

    /// The path a descriptor is bound to, for logs and removal decisions.
    public static func boundPath(of descriptor: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard ok == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        return withUnsafeBytes(of: address.sun_path) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }
    }
}
