import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The soak's clients, one POSIX thread each (a blocked client must not hold
/// up the others, as Dispatch's bounded pool would). Each runs until the
/// shared deadline, with every socket call bounded by a timeout, so the soak
/// stops by itself whatever the agent does.
enum SoakClients {
    /// The ways a client misbehaves, a quarter of the misbehaving clients each.
    enum Misbehaviour: String, CaseIterable, Sendable {
        /// Sends a valid request one byte every 100 ms.
        case slowWriter = "slow-writer"
        /// Sends half a line, then nothing, and holds the connection.
        case halfLine = "half-line"
        /// Sends requests as fast as the socket takes them and never reads an answer.
        case neverReads = "never-reads"
        /// Opens 20 connections at once, over and over: far past the limit.
        case flood = "flood"
    }

    /// What the well-behaved clients saw.
    struct Outcomes: Sendable {
        /// Request to answer, in nanoseconds, retries after a refusal included.
        var latencies: [Int64] = []
        var answered = 0
        /// `too_many_connections` answers (each retried after 50 ms).
        var refusals = 0
        /// No token within 10 s, or an answer that was not a token.
        var failures = 0
        var failureReasons: [String: Int] = [:]

        mutating func merge(_ other: Outcomes) {
            latencies += other.latencies
            answered += other.answered
            refusals += other.refusals
            failures += other.failures
            failureReasons.merge(other.failureReasons, uniquingKeysWith: +)
        }
    }

    /// Asks for `account`'s token like one `passkey token get`: connect,
    /// one request, one answer, close; then waits 250–750 ms; until `deadline`.
    static func wellBehaved(socketPath: String, account: String, until deadline: ContinuousClock.Instant) -> Outcomes {
        let request = Array(#"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{"account":"\#(account)","minValid":60}}"#.utf8)
            + [UInt8(ascii: "\n")]
        let clock = ContinuousClock()
        var outcomes = Outcomes()
        var generator = SystemRandomNumberGenerator()
        while clock.now < deadline {
            let start = clock.now
            let giveUp = start + .seconds(10)
            var done = false
            while !done {
                guard clock.now < giveUp else {
                    outcomes.fail("no token within 10 s")
                    break
                }
                guard let socket = SoakSocket(path: socketPath, timeout: .seconds(10)) else {
                    outcomes.fail("connect: " + String(cString: strerror(errno)))
                    break
                }
                guard socket.sendAll(request) else {
                    // A refused connection is closed at once: its refusal line may still be readable.
                    if let line = socket.readLine(), line.contains("too_many_connections") {
                        outcomes.refusals += 1
                        usleep(50_000)
                        continue
                    }
                    outcomes.fail("send: " + String(cString: strerror(errno)))
                    break
                }
                guard let line = socket.readLine() else {
                    outcomes.fail("no answer: " + String(cString: strerror(errno)))
                    break
                }
                if line.contains(#""accessToken""#) {
                    outcomes.answered += 1
                    outcomes.latencies.append((clock.now - start).nanoseconds)
                    done = true
                } else if line.contains("too_many_connections") {
                    outcomes.refusals += 1
                    usleep(50_000)
                } else {
                    outcomes.fail("answer: " + String(line.prefix(80)))
                    break
                }
            }
            usleep(UInt32.random(in: 250_000...750_000, using: &generator))
        }
        return outcomes
    }

    /// Misbehaves in one way until `deadline`; returns the connections it opened.
    static func misbehave(_ kind: Misbehaviour, socketPath: String, until deadline: ContinuousClock.Instant) -> Int {
        let clock = ContinuousClock()
        var opened = 0
        let status = Array(#"{"jsonrpc":"2.0","id":1,"method":"agent.status"}"#.utf8) + [UInt8(ascii: "\n")]
        while clock.now < deadline {
            switch kind {
            case .slowWriter:
                guard let socket = SoakSocket(path: socketPath, timeout: .seconds(2)) else { break }
                opened += 1
                for byte in status where clock.now < deadline {
                    guard socket.sendAll([byte]) else { break }
                    usleep(100_000)
                }
                _ = socket.readLine()
            case .halfLine:
                guard let socket = SoakSocket(path: socketPath, timeout: .seconds(2)) else { break }
                opened += 1
                _ = socket.sendAll(Array(#"{"jsonrpc":"2.0","id":1,"meth"#.utf8))
                socket.waitForClose(until: deadline)
            case .neverReads:
                guard let socket = SoakSocket(path: socketPath, timeout: .milliseconds(200)) else { break }
                opened += 1
                let list = Array(#"{"jsonrpc":"2.0","id":1,"method":"token.list"}"#.utf8) + [UInt8(ascii: "\n")]
                let burst = Array(repeating: list, count: 64).flatMap { $0 }
                // Until the socket's buffers are full (the send times out) or the agent drops it.
                while clock.now < deadline && socket.sendAll(burst) {}
                socket.waitForClose(until: deadline)
            case .flood:
                let sockets = (0..<20).compactMap { _ in SoakSocket(path: socketPath, timeout: .milliseconds(500)) }
                opened += sockets.count
                for socket in sockets { _ = socket.sendAll(status) }
                usleep(20_000)
            }
            usleep(100_000)
        }
        return opened
    }
}

extension SoakClients.Outcomes {
    mutating func fail(_ reason: String) {
        failures += 1
        failureReasons[reason, default: 0] += 1
    }
}

/// A blocking AF_UNIX client socket whose connect, sends and reads each give
/// up after `timeout` (SO_SNDTIMEO bounds a connect to a full backlog too).
final class SoakSocket {
    let fd: Int32
    private var buffer: [UInt8] = []

    init?(path: String, timeout: Duration) {
        guard var address = try? RawSocketClient.address(path) else { return nil }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        let (seconds, attoseconds) = timeout.components
        var limit = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            errno = code
            return nil
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// False when the peer is gone or the send timed out.
    func sendAll(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    /// The next line (notifications included), or nil on close or timeout.
    func readLine() -> String? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                if line.contains(#""method":"progress""#) { continue }
                return line
            }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// Sits on the connection, reading nothing, until the agent closes it or `deadline`.
    func waitForClose(until deadline: ContinuousClock.Instant) {
        let clock = ContinuousClock()
        while clock.now < deadline {
            var poller = pollfd(fd: fd, events: 0, revents: 0)
            if poll(&poller, 1, 200) > 0 && poller.revents & Int16(POLLHUP | POLLERR) != 0 { return }
        }
    }
}

/// A POSIX thread with a small stack, for the soak's thousand clients.
final class SoakThread: @unchecked Sendable {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private var thread = pthread_t()

    init(_ run: @escaping @Sendable () -> Void) throws(BenchError) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 512 << 10)
        let body = Unmanaged.passRetained(Body(run)).toOpaque()
        let created = pthread_create(&thread, &attributes, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, body)
        guard created == 0 else {
            Unmanaged<Body>.fromOpaque(body).release()
            throw .stepFailed("starting a client thread", reason: String(cString: strerror(created)))
        }
    }

    func join() { pthread_join(thread, nil) }
}
