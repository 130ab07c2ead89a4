#if canImport(Glibc)
import Glibc
#endif

/// A connected AF_UNIX stream socket with newline-framed I/O under deadlines.
/// Deliberately plain POSIX: `passkey status` should cost little more than
/// `ssh-add -l`. The socket stays non-blocking; every wait is a poll(2) with
/// the time left, so no agent (or impostor) can make the CLI hang.
final class UnixSocket {
    /// Why there is no connection.
    enum ConnectFailure: Error {
        /// Nothing listens at the path (no file, a stale socket, not a socket):
        /// the CLI runs the verb in-process instead.
        case noAgent
        /// Something listens but did not accept in time (its backlog is full).
        case timedOut
        /// The listener belongs to another user: it is not our agent.
        case foreignPeer(uid: UInt32)
        case system(call: String, errno: Int32)
    }

    let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0

    /// Connects to `path` within `timeout`, then checks that the process
    /// listening there runs as our own uid before a byte is sent (a listener
    /// of another user at `PASSKEY_AGENT_SOCK` could collect PINs).
    static func connect(path: String, timeout: Duration) throws(ConnectFailure) -> UnixSocket {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { throw .noAgent }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .system(call: "socket", errno: errno) }
        let connection = UnixSocket(fd: fd)
        let deadline = ContinuousClock.now + timeout
        while true {
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if result == 0 { break }
            switch errno {
            case EINTR: continue
            case ENOENT, ECONNREFUSED, ENOTDIR, ENOTSOCK, EPROTOTYPE: throw .noAgent
            case EAGAIN:
                // A full listen backlog: a non-blocking AF_UNIX connect fails
                // at once rather than waiting, so retry until the deadline.
                guard ContinuousClock.now < deadline else { throw .timedOut }
                usleep(10_000)
            default: throw .system(call: "connect", errno: errno)
            }
        }
        let uid = try connection.peerUID()
        guard uid == getuid() else { throw .foreignPeer(uid: uid) }
        return connection
    }

    private init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }

    /// The uid of the process that created the listening socket (SO_PEERCRED).
    private func peerUID() throws(ConnectFailure) -> UInt32 {
        // Glibc's `struct ucred` needs _GNU_SOURCE; this has its layout (pid_t, uid_t, gid_t).
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
            throw .system(call: "getsockopt(SO_PEERCRED)", errno: errno)
        }
        return credentials.uid
    }

    /// Writes all of `bytes` before `deadline`; false when the peer is gone or too slow.
    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n > 0 { offset += n; continue }
            guard n < 0, errno == EINTR || errno == EAGAIN else { return false }
            if errno == EAGAIN, !wait(for: Int16(POLLOUT), until: deadline) { return false }
        }
        return true
    }

    enum ReadFailure: Error {
        case closed
        case timedOut
    }

    /// The next line without its newline, read before `deadline`.
    func readLine(deadline: ContinuousClock.Instant, limit: Int = 16 << 20) throws(ReadFailure) -> [UInt8] {
        // One chunk per call, not per attempt: the first recv usually finds
        // nothing yet, and a fresh zeroed 64 KiB each time cost `passkey
        // token get` page faults it could not spare.
        var chunk: [UInt8] = []
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                if start == buffer.count { buffer.removeAll(keepingCapacity: true); start = 0 }
                return line
            }
            if buffer.count - start > limit { throw .closed }
            if start > 0 { buffer.removeFirst(start); start = 0 }
            if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: 16_384) }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { buffer.append(contentsOf: chunk[0..<n]); continue }
            if n == 0 { throw .closed }
            guard errno == EINTR || errno == EAGAIN else { throw .closed }
            if errno == EAGAIN, !wait(for: Int16(POLLIN), until: deadline) { throw .timedOut }
        }
    }

    /// Waits until the socket is ready for `events`; false once `deadline` passes.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            // Whole milliseconds, at least 1, at most a minute per poll (no overflow for long deadlines).
            let milliseconds = min(60_000, max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            var poller = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&poller, 1, Int32(milliseconds))
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return true }  // let the next call report the error
        }
    }
}
