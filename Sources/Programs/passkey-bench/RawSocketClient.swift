#if canImport(Glibc)
import Glibc
#endif

/// The lightest possible client of the agent: an AF_UNIX stream socket that
/// writes a prepared request line and reads bytes up to the answer's newline.
/// No JSON is parsed on this side, so the timings are the agent's (and the
/// kernel's), not the client's.
final class RawSocketClient {
    let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)
    /// Bytes of `buffer` received but not yet consumed (the start of the next answer).
    private var pending = 0

    init(path: String) throws(BenchError) {
        var address = try Self.address(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .stepFailed("socket()", reason: String(cString: strerror(errno))) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .stepFailed("connecting to \(path)", reason: reason)
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// The `sockaddr_un` for `path`, which must fit in it with its NUL.
    static func address(_ path: String) throws(BenchError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { throw .invalidOption("socket path \(path) is longer than \(capacity - 1) bytes") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        return address
    }

    /// The process at the other end (SO_PEERCRED), e.g. the agent's pid.
    var peerProcess: pid_t? {
        // Glibc's `struct ucred` needs _GNU_SOURCE, which Swift's Glibc module
        // does not define; it is (pid_t, uid_t, gid_t).
        var credentials: (pid: pid_t, uid: uid_t, gid: gid_t) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(pid_t, uid_t, gid_t)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0, credentials.pid > 0 else { return nil }
        return credentials.pid
    }

    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8]) throws(BenchError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .stepFailed("writing to the agent", reason: String(cString: strerror(errno))) }
            offset += n
        }
    }

    /// Reads until one whole line has arrived and returns its length (without
    /// the newline); what follows it is kept for the next call. `keep` gets
    /// the line's bytes when the caller wants to look at them.
    func receiveLine(keep: ((ArraySlice<UInt8>) -> Void)? = nil) throws(BenchError) -> Int {
        var scanned = 0
        while true {
            if let newline = buffer[scanned..<pending].firstIndex(of: UInt8(ascii: "\n")) {
                keep?(buffer[0..<newline])
                let rest = pending - (newline + 1)
                if rest > 0 {
                    buffer.withUnsafeMutableBytes { raw in
                        let base = raw.baseAddress!
                        memmove(base, base + newline + 1, rest)
                    }
                }
                pending = rest
                return newline
            }
            scanned = pending
            guard pending < buffer.count else { throw .stepFailed("reading the agent's answer", reason: "a line longer than 64 KiB") }
            let n = buffer.withUnsafeMutableBytes { raw in recv(fd, raw.baseAddress! + pending, raw.count - pending, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw .stepFailed("reading the agent's answer", reason: n == 0 ? "the agent closed the connection" : String(cString: strerror(errno)))
            }
            pending += n
        }
    }

    /// One request line out, one answer line back; the answer's length.
    func roundTrip(_ request: [UInt8]) throws(BenchError) -> Int {
        try send(request)
        return try receiveLine()
    }

    /// The first answer line, as text (to check the agent answers what we think).
    func roundTripText(_ request: [UInt8]) throws(BenchError) -> String {
        try send(request)
        var text = ""
        _ = try receiveLine { text = String(decoding: $0, as: UTF8.self) }
        return text
    }
}
