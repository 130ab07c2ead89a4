/// Why an HTTP exchange did not produce a response. Each names the URL
/// (without its query, which may carry secrets) so the user knows what failed.
public enum HTTPTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL cannot be used (not http/https, no host).
    case invalidURL(String)
    /// No connection within the connect timeout.
    case connectTimeout(url: String, seconds: Int)
    /// The whole exchange took longer than the request timeout.
    case requestTimeout(url: String, seconds: Int)
    /// The connection failed (refused, reset, DNS, TLS).
    case connectionFailed(url: String, reason: String)
    /// The response body is larger than the caller accepts.
    case responseTooLarge(url: String, limit: Int)

    public var description: String {
        switch self {
        case .invalidURL(let url): return "\(url) is not a usable http(s) URL"
        case .connectTimeout(let url, let seconds): return "could not connect to \(url) within \(seconds) s"
        case .requestTimeout(let url, let seconds): return "\(url) did not answer within \(seconds) s"
        case .connectionFailed(let url, let reason): return "could not reach \(url): \(reason)"
        case .responseTooLarge(let url, let limit): return "the answer from \(url) is larger than \(limit) bytes"
        }
    }
}
