import HTTPTransport

/// Why a token operation failed, as something the user can act on. Tokens
/// never appear in these messages; a server's own description is shown
/// shortened and without control characters.
public enum TokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A token document given to `token put` is unusable: which field, and why.
    case invalidInput(String)
    /// The access token no longer lasts long enough and there is no refresh token.
    case noRefreshToken(account: String)
    /// The token endpoint refused the refresh token (`invalid_grant`): sign in again.
    case invalidGrant(account: String, serverDescription: String?)
    /// The token endpoint answered with another error.
    case server(url: String, status: Int, errorCode: String?, serverDescription: String?)
    /// The token endpoint could not be reached (the URL is in the transport error).
    case network(HTTPTransportError)
    /// The token endpoint's answer is not a usable token response.
    case malformedResponse(url: String, reason: String)
    /// A stored token set does not decode.
    case damagedTokenSet(account: String, reason: String)

    public var description: String {
        switch self {
        case .invalidInput(let why):
            return "the token document cannot be used: \(why)"
        case .noRefreshToken(let account):
            return "the access token of \"\(account)\" has expired and there is no refresh token: sign in again and store the new tokens with `passkey token put \(account)`"
        case .invalidGrant(let account, let text):
            return "the token endpoint refused the refresh token of \"\(account)\" (invalid_grant\(text.map { ": \($0)" } ?? "")): "
                + "sign in again and store the new tokens with `passkey token put \(account)` (the old entry is kept)"
        case .server(let url, let status, let code, let text):
            var line = "the token endpoint \(url) answered HTTP \(status)"
            if let code { line += " with \(code)" }
            if let text { line += ": \(text)" }
            return line
        case .network(let error):
            return error.description
        case .malformedResponse(let url, let reason):
            return "the token endpoint \(url) sent an unusable answer: \(reason)"
        case .damagedTokenSet(let account, let reason):
            return "the stored tokens of \"\(account)\" cannot be read (\(reason)): store them again with `passkey token put \(account)`"
        }
    }

    /// The OAuth `error` code, when the server sent one.
    public var errorCode: String? {
        switch self {
        case .invalidGrant: return "invalid_grant"
        case .server(_, _, let code, _): return code
        default: return nil
        }
    }

    /// A server's text as it may appear in a message: one line, at most 200 characters.
    public static func sanitised(_ text: String?) -> String? {
        guard let text else { return nil }
        let line = String(text.unicodeScalars.filter { $0.properties.generalCategory != .control }.prefix(200))
        return line.isEmpty ? nil : line
    }
}
