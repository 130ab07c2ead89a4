import Harness
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// A provider that answers at once with its head, then sends the body one
/// byte every `interval` — a slow-loris in reverse, each byte resetting an
/// idle read timeout. One connection; it stops when the body is done or the
/// client hangs up, and says which.
final class DrippingServer: Sendable {
    struct Outcome: Sendable {
        /// Body bytes sent before the end.
        var sent: Int
        /// The client closed the connection before the body was done.
        var clientHungUp: Bool
    }

    let port: UInt16
    let bodyLength: Int
    private let listener: Int32
    private let outcome = Locked<Outcome?>(nil)
    private let thread = Locked<BackgroundThread?>(nil)

    init(bodyLength: Int, intervalMilliseconds: Int32) throws {
        self.bodyLength = bodyLength
        let (fd, port) = try LoopbackTCP.listen(backlog: 4)
        listener = fd
        self.port = port
        let started = try BackgroundThread { [self] in
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            let result = Self.drip(connection, bodyLength: bodyLength, interval: intervalMilliseconds)
            outcome.withLock { $0 = result }
        }
        thread.withLock { $0 = started }
    }

    /// Waits for the one exchange to end (the body done or the client gone).
    func finish() -> Outcome? {
        thread.withLock { $0 }?.join()
        close(listener)
        return outcome.withLock { $0 }
    }

    private static func drip(_ connection: Int32, bodyLength: Int, interval: Int32) -> Outcome {
        // The request head, whatever it is.
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !received.ends(with: Array("\r\n\r\n".utf8)) && received.count < 65536 {
            let n = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return Outcome(sent: 0, clientHungUp: true) }
            received += chunk[0..<n]
        }
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(bodyLength)\r\n\r\n".utf8)
        guard send(connection, head, head.count, Int32(MSG_NOSIGNAL)) == head.count else { return Outcome(sent: 0, clientHungUp: true) }
        for sent in 0..<bodyLength {
            // The pace between bytes is a wait for the client's hang-up, not a sleep.
            var watch = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            if poll(&watch, 1, interval) > 0 {
                var byte: UInt8 = 0
                if recv(connection, &byte, 1, Int32(MSG_DONTWAIT)) <= 0 { return Outcome(sent: sent, clientHungUp: true) }
            }
            var space = UInt8(ascii: " ")
            guard send(connection, &space, 1, Int32(MSG_NOSIGNAL)) == 1 else { return Outcome(sent: sent, clientHungUp: true) }
        }
        return Outcome(sent: bodyLength, clientHungUp: false)
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
