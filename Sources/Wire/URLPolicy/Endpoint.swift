import FoundationEssentials

/// Which URLs tokens may be sent to: https, or plain http to this machine
/// (a development server on loopback, as RFC 8252 allows for redirects).
///
/// The URL is parsed with Foundation's RFC 3986 parser — the one the HTTP
/// client uses to pick the host it connects to — never prefix-matched: a
/// prefix test let `http://127.0.0.1:1@evil.example/` through, and the
/// refresh token travelled in clear to the host after the `@`.
///
/// Public for OpenID, whose discovery documents name endpoints too.
public enum Endpoint {
    public static func isUsable(_ url: String) -> Bool { problem(url) == nil }

    /// Why tokens may not go to `url`, or nil when they may.
    public static func problem(_ url: String) -> String? {
        guard url.utf8.count <= 4096, let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
              scheme == "https" || scheme == "http" else {
            return "it is not an https:// URL"
        }
        guard let host = parts.percentEncodedHost, !host.isEmpty,
              url.utf8.dropFirst(scheme.utf8.count).starts(with: "://".utf8) else {
            return "it names no host"
        }
        // A user name or password in the URL hides the real host from a
        // reader (`http://localhost:80@evil.example/`), and would be sent.
        guard parts.percentEncodedUser == nil, parts.percentEncodedPassword == nil else {
            return "it carries a user name or password (`…@`)"
        }
        // A percent-encoded host can decode into a different one than it reads as.
        guard !host.contains("%") else { return "its host is percent-encoded" }
        if let port = parts.port, !(1...65535).contains(port) { return "its port is not 1 to 65535" }
        if scheme == "http", !LoopbackHost.isLoopback(host) {
            return "http:// is allowed only to 127.0.0.1 (127.0.0.0/8), [::1] or localhost; use https://"
        }
        return nil
    }

    /// `url` as it may appear in a message: without a user name or password
    /// (a password is a secret), query or fragment, at most 100 characters.
    public static func shown(_ url: String) -> String {
        let text = url.prefix { $0 != "?" && $0 != "#" }
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return String(text.prefix(100)) }
        let authorityStart = text.index(colon, offsetBy: 3)
        let authorityEnd = text[authorityStart...].firstIndex(of: "/") ?? text.endIndex
        guard let at = text[authorityStart..<authorityEnd].lastIndex(of: "@") else { return String(text.prefix(100)) }
        return String((text[..<authorityStart] + "…" + text[at...]).prefix(100))
    }
}
