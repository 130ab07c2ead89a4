import FoundationEssentials
@testable import HTTPTransport
import Locking
import NIOCore
import Testing
import TestSupport

/// HTTPTransport's own rules against real loopback servers: which URLs it
/// sends to, what reaches the server, that any status is an answer and a
/// redirect is not followed, the size limit, cancellation, and errors that
/// name the URL without its query.
@Suite(.ownThreads) struct HTTPTransportRulesTests {
    /// A loopback server that records each request and answers with `answer`.
    final class RecordingServer: Sendable {
        let requests = Locked<[LoopbackHTTPServer.Request]>([])
        let server: LoopbackHTTPServer

        init(_ answer: @escaping @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Answer = { _ in .json("{}") }) throws {
            let requests = self.requests
            server = try LoopbackHTTPServer { request in
                requests.withLock { $0.append(request) }
                return answer(request)
            }
        }

        func url(_ path: String) -> String { server.url(path) }
        var received: [LoopbackHTTPServer.Request] { requests.withLock { $0 } }
    }

    // MARK: Schemes

    @Test("schemes other than http and https are refused before any connection, named without their query",
          arguments: ["ftp://127.0.0.1/file?token=secret", "file:///etc/passwd?x=1", "ws://127.0.0.1/socket?k=v",
                      "127.0.0.1:80/no-scheme?k=v", "//127.0.0.1/path?k=v", "javascript://alert(1)?k=v"])
    func otherSchemesAreRefused(url: String) async {
        let shown = String(url.prefix { $0 != "?" })
        await #expect(throws: HTTPTransportError.invalidURL(shown)) {
            try await HTTPTransport().send("GET", url)
        }
    }

    @Test("a scheme in any case is the same scheme (RFC 3986 §3.1), and only the scheme is lowered: the path reaches the server as written",
          arguments: ["HTTP", "Http", "hTtP"])
    func schemeCaseIsIgnoredButPathCaseKept(scheme: String) async throws {
        let server = try RecordingServer()
        let response = try await HTTPTransport().send("GET", "\(scheme)://127.0.0.1:\(server.server.port)/V1/Keys?Kid=AbC")
        #expect(response.status == 200)
        #expect(server.received.map(\.target) == ["/V1/Keys?Kid=AbC"])
    }

    @Test("lowercasingScheme lowers the scheme alone and leaves what has no scheme as it is")
    func lowercasingScheme() {
        #expect(HTTPTransport.lowercasingScheme("HTTPS://Example.ORG/A?B=C") == "https://Example.ORG/A?B=C")
        #expect(HTTPTransport.lowercasingScheme("http://x/") == "http://x/")
        // "://" inside a query is not a scheme: nothing before it is a scheme's characters.
        #expect(HTTPTransport.lowercasingScheme("/Path?next=HTTP://x") == "/Path?next=HTTP://x")
        #expect(HTTPTransport.lowercasingScheme("no scheme at all") == "no scheme at all")
    }

    // MARK: What reaches the server

    @Test("send: the method, the headers and the body reach the server as given")
    func methodHeadersAndBodyReachTheServer() async throws {
        let server = try RecordingServer()
        let body = Array("{\"a\":1}".utf8)
        _ = try await HTTPTransport().send("PUT", server.url("/things/7"), headers: [("X-Request-Id", "42"), ("Authorization", "Bearer t")],
                                           body: body)
        let request = try #require(server.received.first)
        #expect(request.method == "PUT" && request.target == "/things/7")
        #expect(request.header("x-request-id") == "42" && request.header("authorization") == "Bearer t")
        #expect(request.body == body)
    }

    @Test("postForm: percent-encoded fields as application/x-www-form-urlencoded, Accept JSON, the caller's headers too")
    func postFormEncodesFields() async throws {
        let server = try RecordingServer()
        let fields = [("grant_type", "refresh_token"), ("refresh_token", "a b&c=d/é+"), ("scope", "openid offline_access")]
        _ = try await HTTPTransport().postForm(server.url("/token"), fields, headers: [("DPoP", "proof")])
        let request = try #require(server.received.first)
        #expect(request.method == "POST")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.header("Accept") == "application/json")
        #expect(request.header("DPoP") == "proof")
        #expect(request.form == ["grant_type": "refresh_token", "refresh_token": "a b&c=d/é+", "scope": "openid offline_access"])
        // Nothing that separates fields travels bare.
        let text = String(decoding: request.body, as: UTF8.self)
        #expect(text.split(separator: "&").count == 3 && !text.contains(" "))
    }

    @Test("postJSON: the value as JSON with Content-Type and Accept application/json")
    func postJSONEncodesTheValue() async throws {
        struct Body: Codable, Equatable { var name: String; var count: Int }
        let server = try RecordingServer()
        _ = try await HTTPTransport().postJSON(server.url("/json"), Body(name: "ä \"q\"", count: 3), headers: [("ApiKey", "k")])
        let request = try #require(server.received.first)
        #expect(request.header("Content-Type") == "application/json" && request.header("Accept") == "application/json")
        #expect(request.header("ApiKey") == "k")
        #expect(try JSONDecoder().decode(Body.self, from: Data(request.body)) == Body(name: "ä \"q\"", count: 3))
    }

    // MARK: Answers

    @Test("any status is an answer, with its headers (read case-insensitively) and body: the caller reads problem details",
          arguments: ["400 Bad Request", "401 Unauthorized", "404 Not Found", "500 Internal Server Error", "503 Service Unavailable"])
    func everyStatusIsAnAnswer(status: String) async throws {
        let server = try RecordingServer { _ in .json(#"{"error":"x"}"#, status: status, headers: [("WWW-Authenticate", "ApiKey")]) }
        let response = try await HTTPTransport().send("GET", server.url("/x"))
        #expect(response.status == Int(status.prefix(3)))
        #expect(response.header("www-authenticate") == "ApiKey" && response.header("CONTENT-TYPE") == "application/json")
        #expect(response.body == Array(#"{"error":"x"}"#.utf8))
    }

    @Test("a redirect is not followed: the 3xx is the answer, and its target never hears from the transport",
          arguments: ["301 Moved Permanently", "302 Found", "303 See Other", "307 Temporary Redirect", "308 Permanent Redirect"])
    func redirectsAreNotFollowed(status: String) async throws {
        let target = try RecordingServer()
        let redirecting = try RecordingServer { _ in LoopbackHTTPServer.Answer(status: status, headers: [("Location", target.url("/elsewhere"))], body: "") }
        let response = try await HTTPTransport().send("POST", redirecting.url("/token"), body: Array("code=1".utf8))
        #expect(response.status == Int(status.prefix(3)))
        #expect(response.header("Location") == target.url("/elsewhere"))
        #expect(redirecting.received.count == 1)
        #expect(target.received.isEmpty, "the redirect's target was asked")
    }

    // MARK: The size limit

    @Test("a body of exactly the limit is read whole; one byte more is responseTooLarge, named without the query")
    func theSizeLimit() async throws {
        let limit = 64 << 10
        let server = try RecordingServer { request in
            LoopbackHTTPServer.Answer(body: String(repeating: "x", count: request.path == "/at-limit" ? limit : limit + 1))
        }
        let transport = HTTPTransport(maximumResponseBytes: limit)
        let whole = try await transport.send("GET", server.url("/at-limit"))
        #expect(whole.body.count == limit)
        await #expect(throws: HTTPTransportError.responseTooLarge(url: server.url("/over"), limit: limit)) {
            try await transport.send("GET", server.url("/over?access_token=secret"))
        }
    }

    @Test("the default limit is 4 MiB: a 4 MiB answer passes, 4 MiB and a byte do not")
    func theDefaultLimit() async throws {
        let server = try RecordingServer { request in
            LoopbackHTTPServer.Answer(body: String(repeating: "y", count: (4 << 20) + (request.path == "/over" ? 1 : 0)))
        }
        let transport = HTTPTransport()
        #expect(transport.maximumResponseBytes == 4 << 20)
        #expect(try await transport.send("GET", server.url("/at")).body.count == 4 << 20)
        await #expect(throws: HTTPTransportError.responseTooLarge(url: server.url("/over"), limit: 4 << 20)) {
            try await transport.send("GET", server.url("/over"))
        }
    }

    // MARK: Failures

    @Test("nobody listening: connectionFailed, \"connection refused\", named without the query or fragment")
    func connectionRefused() async throws {
        let closed = try LoopbackHTTPServer { _ in .json("{}") }
        let url = closed.url("/token")
        closed.stop()
        // AsyncHTTPClient retries a refused connection until the connect
        // timeout, then reports the last failure: a short one keeps this quick.
        await #expect(throws: HTTPTransportError.connectionFailed(url: url, reason: "connection refused")) {
            try await HTTPTransport(connectTimeout: .seconds(1)).send("GET", url + "?client_secret=s3cret#frag")
        }
    }

    @Test("a cancelled caller cancels the exchange: the server sees the connection closed, long before the deadline")
    func cancellationClosesTheConnection() async throws {
        let server = try HeldServer()
        var events = server.events.makeAsyncIterator()
        let transport = HTTPTransport(requestTimeout: .seconds(60))
        let url = "http://127.0.0.1:\(server.port)/held"
        let call = Task { try await transport.send("GET", url) }
        #expect(await events.next() == .requestArrived)
        call.cancel()
        #expect(await events.next() == .clientHungUp)
        server.finish()
        let outcome = await call.result
        guard case .failure(let error as HTTPTransportError) = outcome else {
            Issue.record("a cancelled exchange answered: \(outcome)")
            return
        }
        if case .requestTimeout = error { Issue.record("the exchange ran to its deadline instead of being cancelled") }
    }

    @Test("error texts name the URL and what went wrong, never the query")
    func errorTexts() {
        #expect(HTTPTransportError.invalidURL("ftp://x/y").description == "ftp://x/y is not a usable http(s) URL")
        #expect(HTTPTransportError.requestTimeout(url: "http://h/t", seconds: 15).description == "http://h/t did not answer within 15 s")
        #expect(HTTPTransportError.connectTimeout(url: "http://h/t", seconds: 5).description == "could not connect to http://h/t within 5 s")
        #expect(HTTPTransportError.responseTooLarge(url: "http://h/t", limit: 10).description == "the answer from http://h/t is larger than 10 bytes")
        #expect(HTTPTransport.withoutQuery("https://h/p?code=abc#state=x") == "https://h/p")
        #expect(HTTPTransport.withoutQuery("https://h/p#frag?x") == "https://h/p")
    }

    // MARK: Time

    @Test("durations become NIO time amounts exactly, and absurd ones saturate instead of trapping")
    func timeAmounts() {
        #expect(HTTPTransport.timeAmount(.seconds(15)).nanoseconds == 15_000_000_000)
        #expect(HTTPTransport.timeAmount(.milliseconds(1500)).nanoseconds == 1_500_000_000)
        #expect(HTTPTransport.timeAmount(.nanoseconds(7)).nanoseconds == 7)
        #expect(HTTPTransport.timeAmount(.seconds(Int64.max)).nanoseconds == .max)
        #expect(HTTPTransport.timeAmount(.seconds(9_223_372_036)).nanoseconds == 9_223_372_036_000_000_000)
        #expect(HTTPTransport.timeAmount(.seconds(9_223_372_036) + .milliseconds(900)).nanoseconds == .max,
                "the whole seconds fit in nanoseconds, the added fraction overflows")
        #expect(HTTPTransport.timeAmount(.seconds(-5)).nanoseconds == 0)
        #expect(HTTPTransport.timeAmount(.seconds(Int64.min)).nanoseconds == 0)
    }

    @Test("a transport with an absurd deadline still answers (the deadline saturates)")
    func anAbsurdDeadlineStillAnswers() async throws {
        let server = try RecordingServer()
        let response = try await HTTPTransport(connectTimeout: .seconds(Int64.max), requestTimeout: .seconds(Int64.max))
            .send("GET", server.url("/ok"))
        #expect(response.status == 200)
    }
}
