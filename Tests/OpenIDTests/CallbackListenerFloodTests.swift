import OpenID
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Another local user can connect to the login's loopback listener too. Its
/// 32 slots used to be held by half-sent requests (a head never finished),
/// and the browser's callback, the newest connection, was refused. Now a
/// request has its deadline (2 s by default) and, when all slots are full,
/// the oldest connection that has not sent a whole request makes room.
@Suite(.ownThreads) struct CallbackListenerFloodTests {
    let state = "S-" + String(repeating: "y", count: 41)

    /// A connection that sends half a request head and never the rest.
    static func halfRequest(port: Int) -> Int32? {
        guard let fd = LoopbackTCP.connect(port: UInt16(port)) else { return nil }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let half = Array("GET /callback?state=x HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Slow: ".utf8)
        guard send(fd, half, half.count, Int32(MSG_NOSIGNAL)) == half.count else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Blocks until the listener closes `fd`: nil, or what happened instead
    /// (no close within 10 s, or the error recv(2) gave).
    static func closeByListener(_ fd: Int32) -> String? {
        var byte: UInt8 = 0
        while true {
            let n = recv(fd, &byte, 1, 0)
            if n < 0 && errno == EINTR { continue }
            if n == 0 || (n < 0 && errno == ECONNRESET) { return nil }
            if n > 0 { return "the listener sent a byte instead of closing" }
            if errno == EAGAIN { return "no close within 10 s" }
            return "recv: \(String(cString: strerror(errno)))"
        }
    }

    @Test("40 half requests fill the slots; the browser's callback still completes the login")
    func halfRequestsCannotKeepTheCallbackOut() async throws {
        // A deadline far beyond the test: only eviction can make room.
        let listener = try await CallbackListener.start(expectedState: state, requestDeadline: .seconds(600))
        defer { listener.close() }
        var flood: [Int32] = []
        defer { flood.forEach { close($0) } }
        for _ in 0..<40 { flood.append(try #require(Self.halfRequest(port: listener.port))) }
        // The oldest of them is evicted as the 33rd arrives: waiting for that close
        // proves the listener has taken in the flood before the callback comes.
        #expect(Self.closeByListener(flood[0]) == nil, "the oldest half request makes room")

        let answer = try #require(CallbackListenerTests.get("/callback?code=c&state=\(state)", port: listener.port),
                                  "the callback is answered, not refused")
        #expect(answer.status == 200)
        #expect(try await listener.callback().hasSuffix("/callback?code=c&state=\(state)"))
    }

    @Test("a request head not finished within the deadline is closed; the callback then completes")
    func anUnfinishedHeadIsClosedAtItsDeadline() async throws {
        let listener = try await CallbackListener.start(expectedState: state, requestDeadline: .milliseconds(200))
        defer { listener.close() }
        let half = try #require(Self.halfRequest(port: listener.port))
        defer { close(half) }
        #expect(Self.closeByListener(half) == nil, "closed at the deadline, not held")
        let answer = try #require(CallbackListenerTests.get("/callback?code=c&state=\(state)", port: listener.port))
        #expect(answer.status == 200)
        #expect(try await listener.callback().hasSuffix("code=c&state=\(state)"))
    }
}
