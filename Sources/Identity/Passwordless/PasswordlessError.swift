import HTTPTransport
import WebAuthnClient

/// Why a passwordless.dev ceremony failed, in terms a user can act on.
public enum PasswordlessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The settings are incomplete: which one is missing, and where to set it.
    case missingSetting(String)
    /// The server answered with problem details (RFC 7807).
    case server(ProblemDetails)
    /// The server could not be reached.
    case transport(HTTPTransportError)
    /// The server's answer is not what the API documents.
    case malformedResponse(url: String, reason: String)
    /// The ceremony on the security key failed.
    case ceremony(CeremonyError)

    public var description: String {
        switch self {
        case .missingSetting(let what): return what
        case .server(let problem): return problem.description
        case .transport(let error): return error.description
        case .malformedResponse(let url, let reason): return "\(url) answered something unexpected: \(reason)"
        case .ceremony(let error): return error.description
        }
    }
}

/// A problem-details answer: `{type, title, status, errorCode, detail}`.
public struct ProblemDetails: Sendable, Equatable, Decodable, CustomStringConvertible {
    public var type: String?
    public var title: String?
    public var status: Int
    public var errorCode: String?
    public var detail: String?

    public init(type: String?, title: String?, status: Int, errorCode: String?, detail: String?) {
        self.type = type
        self.title = title
        self.status = status
        self.errorCode = errorCode
        self.detail = detail
    }

    enum CodingKeys: String, CodingKey { case type, title, status, errorCode, detail }

    /// Every field may be missing: a 401 from a proxy is still worth reporting.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try? container.decodeIfPresent(String.self, forKey: .type)
        title = try? container.decodeIfPresent(String.self, forKey: .title)
        status = (try? container.decodeIfPresent(Int.self, forKey: .status)) ?? 0
        errorCode = try? container.decodeIfPresent(String.self, forKey: .errorCode)
        detail = try? container.decodeIfPresent(String.self, forKey: .detail)
    }

    /// "the server refused the request: expired_token (403) — The token expired 12 seconds ago."
    public var description: String {
        var text = "the server refused the request: \(errorCode ?? "HTTP \(status)")"
        if errorCode != nil { text += " (\(status))" }
        if let title, !title.isEmpty { text += " — \(title)" }
        if let detail, !detail.isEmpty, detail != title { text += " \(detail)" }
        return text
    }
}
