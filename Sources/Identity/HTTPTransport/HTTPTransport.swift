import AsyncHTTPClient
import FoundationEssentials
import Hexadecimal
import Locking
import NIOCore
import NIOHTTP1
import URLPolicy

/// The one HTTP client of passkey-agent (token endpoints, identity
/// services): AsyncHTTPClient with the timeouts peers learned the hard way
/// (oidc-agent hung for a week without them): 5 s to connect, 15 s for the
/// whole exchange — head and body alike. The async `execute` API's deadline
/// ends when the response head arrives, so a server that sends its head and
/// then drips the body a byte at a time (each byte resets the idle read
/// timeout) could hold the caller as long as it liked. The delegate API's
/// deadline covers the exchange until the body's last byte, and it is kept
/// by NIO's event loop: a response that arrived in time counts as in time
/// even when the caller's threads were busy (a race against `Task.sleep` on
/// the cooperative pool, two threads here, judged busy threads instead).
public final class HTTPTransport: Sendable {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    public let connectTimeout: Duration
    public let requestTimeout: Duration
    public let maximumResponseBytes: Int
    private let client: HTTPClient

    public init(connectTimeout: Duration = .seconds(5), requestTimeout: Duration = .seconds(15),
                maximumResponseBytes: Int = 4 << 20) {
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maximumResponseBytes = maximumResponseBytes
        client = Self.sharedClient(connectTimeout: connectTimeout)
    }

    /// One AsyncHTTPClient per connect timeout, for the life of the process,
    /// never shut down (as AsyncHTTPClient's own `HTTPClient.shared`).
    /// Shutting a client down when its transport went away raced with the
    /// last request's write completing: that callback, queued after the
    /// response, then handed the pool a connection the shutdown had already
    /// dropped, and AsyncHTTPClient 1.37.0 traps on that ("A connection that
    /// we don't know was released?"; a `passkey-local` died of it after
    /// `passkey signin`, docs/RELIABILITY.md). Idle connections close by the
    /// pool's idle timeout.
    private static let clients = Locked<[Duration: HTTPClient]>([:])

    private static func sharedClient(connectTimeout: Duration) -> HTTPClient {
        clients.withLock { clients in
            if let client = clients[connectTimeout] { return client }
            var configuration = HTTPClient.Configuration()
            configuration.timeout = .init(connect: timeAmount(connectTimeout))
            configuration.redirectConfiguration = .disallow
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[connectTimeout] = client
            return client
        }
    }

    /// Sends one request; any HTTP status is a response (the caller reads
    /// problem details); transport failures are `HTTPTransportError`s.
    public func send(_ method: String, _ url: String, headers: [(String, String)] = [],
                     body: [UInt8]? = nil) async throws(HTTPTransportError) -> Response {
        let url = Self.lowercasingScheme(url)
        let shown = Self.withoutQuery(url)
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else { throw .invalidURL(shown) }
        var headerFields = HTTPHeaders()
        for (name, value) in headers { headerFields.add(name: name, value: value) }
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: url, method: HTTPMethod(rawValue: method), headers: headerFields,
                                             body: body.map { .bytes($0) })
        } catch {
            throw .invalidURL(shown)
        }
        let seconds = Int(requestTimeout.components.seconds)
        let deadline = NIODeadline.now() + Self.timeAmount(requestTimeout)
        let accumulator = ResponseAccumulator(request: request, maxBodySize: maximumResponseBytes)
        let exchange = client.execute(request: request, delegate: accumulator, deadline: deadline)
        do {
            // A cancelled caller (the agent's `$/cancel`) cancels the exchange, which closes its connection.
            let response = try await withTaskCancellationHandler {
                try await exchange.futureResult.get()
            } onCancel: {
                exchange.cancel()
            }
            return Response(status: Int(clamping: response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                            body: response.body.map { Array($0.readableBytesView) } ?? [])
        } catch let error as HTTPTransportError {
            throw error
        } catch let error as HTTPClientError {
            switch error {
            case .connectTimeout: throw .connectTimeout(url: shown, seconds: Int(connectTimeout.components.seconds))
            case .deadlineExceeded, .readTimeout: throw .requestTimeout(url: shown, seconds: seconds)
            case .invalidURL, .emptyHost, .emptyScheme: throw .invalidURL(shown)
            default: throw .connectionFailed(url: shown, reason: "\(error)")
            }
        } catch is ResponseAccumulator.ResponseTooBigError {
            throw .responseTooLarge(url: shown, limit: maximumResponseBytes)
        } catch {
            throw .connectionFailed(url: shown, reason: Self.reason(error))
        }
    }

    /// POSTs a JSON body; `Content-Type` and `Accept` are set.
    public func postJSON<Body: Encodable>(_ url: String, _ value: Body,
                                          headers: [(String, String)] = []) async throws -> Response {
        let body = try Array(JSONEncoder().encode(value))
        return try await send("POST", url, headers: headers + [("Content-Type", "application/json"),
                                                                ("Accept", "application/json")], body: body)
    }

    /// POSTs `application/x-www-form-urlencoded` fields (OAuth 2.0 token requests).
    public func postForm(_ url: String, _ fields: [(String, String)],
                         headers: [(String, String)] = []) async throws(HTTPTransportError) -> Response {
        let body = PercentEncoding.query(fields)
        return try await send("POST", url, headers: headers + [("Content-Type", "application/x-www-form-urlencoded"),
                                                                ("Accept", "application/json")], body: Array(body.utf8))
    }

    /// `url` with its scheme in lower case (RFC 3986 §3.1: schemes are
    /// case-insensitive), the rest as given: a `jku` written `HTTPS://…` that
    /// the trust rule accepted is fetched, not refused as malformed.
    static func lowercasingScheme(_ url: String) -> String {
        guard let separator = url.firstRange(of: "://"),
              url[..<separator.lowerBound].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return url }
        return url[..<separator.lowerBound].lowercased() + url[separator.lowerBound...]
    }

    /// A Duration as NIO's TimeAmount, saturating rather than trapping on an absurd value.
    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .nanoseconds(seconds < 0 ? 0 : .max) }
        let (total, overflowed) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return .nanoseconds(overflowed ? .max : max(0, total))
    }

    static func withoutQuery(_ url: String) -> String {
        String(url.prefix { $0 != "?" && $0 != "#" })
    }

    private static func reason(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        return text
    }
}
