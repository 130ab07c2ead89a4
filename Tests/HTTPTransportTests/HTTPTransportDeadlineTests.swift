import HTTPTransport
import Testing
import TestSupport

/// The transport's one deadline covers the whole exchange. A provider that
/// sends its head at once and then drips the body a byte at a time used to
/// hold the caller (and `login.begin`) for as long as it liked: the deadline
/// stopped at the head. A real loopback server drips here; the deadline is
/// the test's (1 s), the body would take 10 s.
@Suite(.ownThreads) struct HTTPTransportDeadlineTests {
    @Test("a dripped body is cut at the deadline: requestTimeout, and the connection is closed")
    func aDrippingBodyIsCutAtTheDeadline() async throws {
        let server = try DrippingServer(bodyLength: 200, intervalMilliseconds: 50)
        let transport = HTTPTransport(requestTimeout: .seconds(1))
        let url = "http://127.0.0.1:\(server.port)/v1/token"
        await #expect(throws: HTTPTransportError.requestTimeout(url: url, seconds: 1)) {
            try await transport.send("POST", url + "?secret=not-shown", body: Array("grant_type=x".utf8))
        }
        let outcome = try #require(server.finish())
        #expect(outcome.clientHungUp, "the transport closed the connection instead of reading on")
        #expect(outcome.sent < server.bodyLength)
    }

    @Test("the scheme is case-insensitive (RFC 3986 §3.1): HTTP:// reaches the server like http://")
    func anUpperCaseSchemeIsTheSameScheme() async throws {
        let server = try DrippingServer(bodyLength: 2, intervalMilliseconds: 1)
        let response = try await HTTPTransport().send("GET", "HTTP://127.0.0.1:\(server.port)/v1/keys")
        #expect(response.status == 200 && response.body.count == 2)
        _ = server.finish()
    }

    @Test("the defaults stay: 5 s to connect, 15 s for the whole exchange")
    func theDefaultsAreFiveAndFifteenSeconds() {
        let transport = HTTPTransport()
        #expect(transport.connectTimeout == .seconds(5))
        #expect(transport.requestTimeout == .seconds(15))
    }
}
