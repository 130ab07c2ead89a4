#if canImport(Glibc)
import Glibc
#endif

/// One TCP connection to vpcd, with the reads and writes its framing needs:
/// vpcd 0.8 sends a frame's 2-byte length and its payload in separate
/// `send()` calls, so every read here is "exactly n bytes".
final class VPCDSocket {
    enum ReadResult {
        case bytes([UInt8])
        case closed(String)
        case stopped
    }

    let fd: Int32
    private let stop: StopSignal

    private init(fd: Int32, stop: StopSignal) {
        self.fd = fd
        self.stop = stop
    }

    deinit { close(fd) }

    /// Connects to `host:port`; returns the reason as text when it cannot (the caller retries).
    static func connect(host: String, port: UInt16, stop: StopSignal,
                        timeoutMilliseconds: Int32 = 3000) -> Result<VPCDSocket, ConnectFailure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            return .failure(.unresolvable(String(cString: gai_strerror(rc))))
        }
        defer { freeaddrinfo(list) }

        var lastError = "no address"
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let address = cursor {
            cursor = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue),
                            address.pointee.ai_protocol)
            if fd < 0 { lastError = errnoText(); continue }
            switch connectNonBlocking(fd: fd, address: address.pointee, stop: stop, timeout: timeoutMilliseconds) {
            case .success:
                var one: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return .success(VPCDSocket(fd: fd, stop: stop))
            case .failure(let failure):
                close(fd)
                if case .stopped = failure { return .failure(.stopped) }
                if case .refused(let why) = failure { lastError = why }
            }
        }
        return .failure(.refused(lastError))
    }

    enum ConnectFailure: Error {
        case unresolvable(String)
        case refused(String)
        case stopped
    }

    private static func connectNonBlocking(fd: Int32, address: addrinfo, stop: StopSignal,
                                           timeout: Int32) -> Result<Void, ConnectFailure> {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(fd, F_SETFL, flags) }
        if Glibc.connect(fd, address.ai_addr, address.ai_addrlen) == 0 { return .success(()) }
        guard errno == EINPROGRESS else { return .failure(.refused(errnoText())) }
        var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0),
                   pollfd(fd: stop.readEnd, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, 2, timeout)
        if stop.isRequested { return .failure(.stopped) }
        guard ready > 0, fds[0].revents != 0 else { return .failure(.refused("connection timed out")) }
        var socketError: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &length) == 0, socketError == 0 else {
            return .failure(.refused(String(cString: strerror(socketError))))
        }
        return .success(())
    }

    /// Reads exactly `count` bytes, waiting as long as needed.
    func read(exactly count: Int) -> ReadResult {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: stop.readEnd, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if stop.isRequested { return .stopped }
            if ready < 0 {
                if errno == EINTR { continue }
                return .closed(Self.errnoText())
            }
            let n = bytes.withUnsafeMutableBytes { buffer in
                recv(fd, buffer.baseAddress.map { $0 + filled }, count - filled, 0)
            }
            // vpcd writes a frame's length and payload in two send() calls;
            // with Nagle on its side the payload waits for our ACK of the
            // length, and a delayed ACK costs ~40 ms per APDU. Ask Linux to
            // acknowledge at once (the flag does not stick, so set it per read).
            var quickAck: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_QUICKACK, &quickAck, socklen_t(MemoryLayout<Int32>.size))
            if n == 0 { return .closed("vpcd closed the connection") }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .closed(Self.errnoText())
            }
            filled += n
        }
        return .bytes(bytes)
    }

    /// Sends one frame: 2-byte big-endian length, then the payload, in one write.
    func writeFrame(_ payload: [UInt8]) -> Bool {
        guard payload.count <= 0xFFFF else { return false }
        let frame = [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
        var offset = 0
        while offset < frame.count {
            let n = frame[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
