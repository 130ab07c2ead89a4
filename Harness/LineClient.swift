import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A raw client for the agent's socket: writes bytes, reads newline-framed
/// lines. Tests use it to send exactly what they mean, malformed input
/// included; passkey-bench times the agent through it, so reading a line
/// parses nothing and, without a timeout, costs one recv(2).
/// One thread uses a client at a time (@unchecked: its read buffer is not locked).
public final class LineClient: @unchecked Sendable {
    public let fd: Int32
    /// Received bytes; those in `start..<end` are not consumed yet.
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)
    private var start = 0
    private var end = 0
    /// `start..<scanned` holds no newline.
    private var scanned = 0

    /// Connects to `path`. With `timeout`, the connect (to a full backlog),
    /// every send and every read give up after it (SO_SNDTIMEO, SO_RCVTIMEO):
    /// a send fails, a read returns nil.
    public init(path: String, timeout: Duration? = nil) throws(HarnessError) {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket") }
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            var limit = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        // On a throw from here on `self` is whole, so `deinit` runs and closes
        // `fd`: closing it here as well would close whatever descriptor another
        // thread got that number for in between (the soak's clients did).
        let connected = try UnixSocketAddress.with(path) { [fd] in connect(fd, $0, $1) }
        // errno is still the connect's, for callers that tally it.
        guard connected == 0 else { throw .system("connect \(path)") }
    }

    deinit { if fd >= 0 { close(fd) } }

    public func send(_ text: String) throws(HarnessError) { try send(Array(text.utf8)) }

    /// Sends all of `bytes`.
    public func send(_ bytes: [UInt8]) throws(HarnessError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .system("send") }
            offset += n
        }
    }

    /// The next line, or nil when the peer closed the connection; throws after `timeout` seconds.
    public func readLine(timeout: TimeInterval = 10) throws(HarnessError) -> String? {
        try nextLine(timeout: .seconds(timeout)) { String(decoding: $0, as: UTF8.self) }
    }

    /// Reads until a whole line has arrived and hands its bytes (without the
    /// newline) to `body`; what follows it is kept for the next call. Nil when
    /// the peer closed the connection (or reset it, or the socket's own timeout
    /// passed) first; with a `timeout`, throws when no line came within it.
    public func nextLine<Result>(timeout: Duration? = nil, _ body: (ArraySlice<UInt8>) -> Result) throws(HarnessError) -> Result? {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            if let newline = buffer[scanned..<end].firstIndex(of: UInt8(ascii: "\n")) {
                let line = body(buffer[start..<newline])
                start = newline + 1
                if start == end { (start, end) = (0, 0) }
                scanned = start
                return line
            }
            scanned = end
            makeRoom()
            if let deadline, let timeout {
                let remaining = deadline - ContinuousClock.now
                guard remaining > .zero else { throw HarnessError("no line within \(timeout)") }
                let (seconds, attoseconds) = remaining.components
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, Int32(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)) <= 0 { continue }
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + end, $0.count - end, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            end += n
        }
    }

    /// The process at the other end (SO_PEERCRED), e.g. the agent's pid.
    public var peerProcess: pid_t? {
        // Glibc's `struct ucred` needs _GNU_SOURCE, which Swift's Glibc module
        // does not define; it is (pid_t, uid_t, gid_t).
        var credentials: (pid: pid_t, uid: uid_t, gid: gid_t) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(pid_t, uid_t, gid_t)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0, credentials.pid > 0 else { return nil }
        return credentials.pid
    }

    /// Space after `end` for the next recv: moves what is pending to the
    /// front, or doubles the buffer when a line fills it.
    private func makeRoom() {
        guard end == buffer.count else { return }
        if start > 0 {
            let pending = end - start
            buffer.withUnsafeMutableBytes { raw in
                let base = raw.baseAddress!
                memmove(base, base + start, pending)
            }
            scanned -= start
            (start, end) = (0, pending)
        } else {
            buffer.append(contentsOf: repeatElement(0, count: buffer.count))
        }
    }
}
