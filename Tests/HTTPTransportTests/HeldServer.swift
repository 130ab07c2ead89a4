import Harness

#if canImport(Glibc)
import Glibc
#endif

/// A server that reads one request's head and then answers nothing, holding
/// the connection until the client hangs up. It reports both moments as
/// events, so a test awaits them instead of waiting on a clock.
final class HeldServer: Sendable {
    enum Event: Sendable, Equatable {
        /// The request head arrived.
        case requestArrived
        /// The client closed the connection.
        case clientHungUp
    }

    let port: UInt16
    let events: AsyncStream<Event>
    private let listener: Int32
    private let thread: BackgroundThread

    init() throws {
        let (fd, port) = try LoopbackTCP.listen(backlog: 4)
        listener = fd
        self.port = port
        let (events, continuation) = AsyncStream<Event>.makeStream()
        self.events = events
        thread = try BackgroundThread {
            defer { continuation.finish() }
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            var announced = false
            // Reads until the client closes: the head first, then nothing more is expected.
            while true {
                let n = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                received += chunk[0..<n]
                if !announced, received.count >= 4, received.suffix(4) == [13, 10, 13, 10] {
                    announced = true
                    continuation.yield(.requestArrived)
                }
            }
            continuation.yield(.clientHungUp)
        }
    }

    /// Stops listening once the one connection is done.
    func finish() {
        thread.join()
        close(listener)
    }
}
