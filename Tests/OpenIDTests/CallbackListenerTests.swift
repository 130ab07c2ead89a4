import OpenID
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The loopback redirect listener, driven by raw HTTP requests over TCP
/// (a browser would not let a test choose its Host header).
@Suite(.ownThreads) struct CallbackListenerTests {
    let state = "S-" + String(repeating: "x", count: 41)

    /// One request (`GET target` with `host`) to 127.0.0.1:port; the answer's
    /// status code and body, or nil when nothing listens.
    static func get(_ target: String, port: Int, host: String? = nil, address: String = "127.0.0.1",
                    method: String = "GET") -> (status: Int, body: String)? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // Never block for long: this runs on a thread of Swift's shared pool,
        // and a listener being closed may still accept into its backlog
        // without ever answering — a recv without a deadline then held the
        // pool's threads and hung the whole test run. No answer in 5 s is nil.
        var deadline = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &deadline, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &deadline, socklen_t(MemoryLayout<timeval>.size))
        var peer = sockaddr_in()
        peer.sin_family = sa_family_t(AF_INET)
        peer.sin_port = in_port_t(UInt16(port).bigEndian)
        peer.sin_addr.s_addr = inet_addr(address)
        let connected = withUnsafePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { return nil }
        let request = Array("\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nUser-Agent: test\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return nil }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            received += chunk[0..<n]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 "), let status = Int(text.dropFirst(9).prefix(3)) else { return nil }
        let parts = text.split(separator: "\r\n\r\n", maxSplits: 1)
        return (status, parts.count == 2 ? String(parts[1]) : "")
    }

    @Test func theGoodCallbackIsDeliveredOnceAndTheListenerCloses() async throws {
        let listener = try await CallbackListener.start(expectedState: state)
        #expect(listener.redirectURI == "http://127.0.0.1:\(listener.port)/callback")
        let answer = try #require(Self.get("/callback?code=SECRET-CODE&state=\(state)", port: listener.port))
        #expect(answer.status == 200)
        #expect(!answer.body.contains("SECRET-CODE"))
        #expect(!answer.body.contains(state))
        #expect(try await listener.callback() == "http://127.0.0.1:\(listener.port)/callback?code=SECRET-CODE&state=\(state)")
        // A second callback after completion finds nothing listening.
        try await listener.listeningClosed.get()
        #expect(Self.get("/callback?code=again&state=\(state)", port: listener.port) == nil)
    }

    /// DNS rebinding: a page of evil.example rebound to 127.0.0.1 sends its own Host.
    @Test func aForeignHostGets400AndTheListenerKeepsWaiting() async throws {
        let listener = try await CallbackListener.start(expectedState: state)
        for host in ["evil.example:\(listener.port)", "localhost:\(listener.port)", "127.0.0.1", "127.0.0.1:1"] {
            let answer = try #require(Self.get("/callback?code=c&state=\(state)", port: listener.port, host: host))
            #expect(answer.status == 400, "Host \(host)")
            #expect(!answer.body.contains("evil"))
        }
        let answer = try #require(Self.get("/callback?code=c&state=\(state)", port: listener.port))
        #expect(answer.status == 200)
        #expect(try await listener.callback().hasSuffix("/callback?code=c&state=\(state)"))
    }

    @Test func aWrongStateGets400ThenTheRightOneIsAccepted() async throws {
        let listener = try await CallbackListener.start(expectedState: state)
        let wrong = try #require(Self.get("/callback?code=c&state=other-state-%3Cscript%3E", port: listener.port))
        #expect(wrong.status == 400)
        #expect(!wrong.body.contains("other-state"))
        #expect(!wrong.body.contains("<script>"))
        #expect(try #require(Self.get("/callback?code=c", port: listener.port)).status == 400)
        #expect(try #require(Self.get("/other?state=\(state)", port: listener.port)).status == 400)
        #expect(try #require(Self.get("/callback?state=\(state)", port: listener.port, method: "POST")).status == 400)
        let right = try #require(Self.get("/callback?code=c2&state=\(state)", port: listener.port))
        #expect(right.status == 200)
        #expect(try await listener.callback().hasSuffix("code=c2&state=\(state)"))
    }

    /// A refusal is accepted as the callback (the login ends with it); the
    /// page names the RFC 6749 code and nothing the provider wrote.
    @Test func aRefusalIsTheCallbackToo() async throws {
        let listener = try await CallbackListener.start(expectedState: state)
        let answer = try #require(Self.get("/callback?error=access_denied&error_description=%3Cb%3Ehi%3C%2Fb%3E&state=\(state)",
                                           port: listener.port))
        #expect(answer.status == 200)
        #expect(answer.body.contains("access_denied"))
        #expect(!answer.body.contains("<b>hi"))
        let url = try await listener.callback()
        let request = AuthorizationRequest(redirectURI: listener.redirectURI, state: state, nonce: "n", pkce: PKCE())
        let metadata = ProviderMetadata(issuer: "https://id.example.com", authorizationEndpoint: "https://id.example.com/a",
                                        tokenEndpoint: "https://id.example.com/t", jwksURI: "https://id.example.com/k")
        #expect(throws: OpenIDError.authorizationRefused(code: "access_denied", description: "<b>hi</b>")) {
            try request.code(fromRedirect: url, metadata: metadata)
        }
    }

    /// Bound to 127.0.0.1 only: another loopback address (Linux routes all of 127/8 to lo) finds nothing.
    @Test func itListensOn127001Only() async throws {
        let listener = try await CallbackListener.start(expectedState: state)
        defer { listener.close() }
        #expect(Self.get("/callback?code=c&state=\(state)", port: listener.port, host: "127.0.0.2:\(listener.port)",
                         address: "127.0.0.2") == nil)
        #expect(Self.get("/callback?code=c&state=x", port: listener.port)?.status == 400)
    }

    @Test func cancellingTheWaitClosesTheListener() async throws {
        let listener = try await CallbackListener.start(expectedState: state)
        let port = listener.port
        let closed = listener.listeningClosed
        // Cancelled before or while it waits, it is the same: `callback()`'s
        // cancellation handler closes the listener, and the wait ends `.cancelled`.
        let wait = Task { try await listener.callback() }
        wait.cancel()
        await #expect(throws: OpenIDError.cancelled) { try await wait.value }
        try await closed.get()
        #expect(Self.get("/callback?code=c&state=\(state)", port: port) == nil)
    }

    @Test func aListenerNobodyHoldsStopsListening() async throws {
        var listener: CallbackListener? = try await CallbackListener.start(expectedState: state)
        let port = try #require(listener?.port)
        #expect(Self.get("/callback?state=x", port: port)?.status == 400)
        let closed = try #require(listener?.listeningClosed)
        listener = nil
        try await closed.get()
        #expect(Self.get("/callback?code=c&state=\(state)", port: port) == nil)
    }

    @Test func aFixedPortIsUsedAndABadOneRefused() async throws {
        let first = try await CallbackListener.start(expectedState: state)
        defer { first.close() }
        await #expect(throws: OpenIDError.self) { try await CallbackListener.start(expectedState: state, port: first.port) }
        await #expect(throws: OpenIDError.self) { try await CallbackListener.start(expectedState: state, port: 70000) }
    }
}
