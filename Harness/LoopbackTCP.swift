#if canImport(Glibc)
import Glibc
#endif

/// TCP on 127.0.0.1 for the tests' own servers and probes: the one place
/// that fills in a `sockaddr_in`.
public enum LoopbackTCP {
    /// A socket listening on an ephemeral loopback port, close-on-exec: its
    /// descriptor (the caller closes it) and the port.
    public static func listen(backlog: Int32) throws(HarnessError) -> (descriptor: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket") }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && Glibc.listen(fd, backlog) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard listening else {
            let failure = HarnessError.system("cannot listen on loopback")
            close(fd)
            throw failure
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// A port the kernel just handed out on 127.0.0.1 (bound to 0, then
    /// closed), for a program that must be told its port before it listens.
    public static func freePort() throws(HarnessError) -> UInt16 {
        let (fd, port) = try listen(backlog: 1)
        close(fd)
        return port
    }

    /// A socket connected to `port` on 127.0.0.1 (the caller closes it), or
    /// nil when nobody accepts there.
    public static func connect(port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            close(fd)
            return nil
        }
        return fd
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
