import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

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
        if scheme == "http", !isLoopback(host: host) {
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

    /// A host that can only mean this machine: `localhost` itself, an IPv4
    /// literal in 127.0.0.0/8 written as four decimal octets, or `[::1]`.
    /// Names that merely start with "127." or end in "localhost." are DNS
    /// names anyone can point anywhere; other spellings of 127.0.0.1
    /// (`0x7f.1`, `2130706433`, `0177.0.0.1`) are refused rather than interpreted.
    public static func isLoopback(host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        if host.hasPrefix("["), host.hasSuffix("]") {
            return isIPv6Loopback(String(host.dropFirst().dropLast()))
        }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return false }
        for octet in octets {
            guard (1...3).contains(octet.utf8.count), octet.utf8.allSatisfy({ (48...57).contains($0) }),
                  octet == "0" || !octet.hasPrefix("0"), let value = Int(octet), value <= 255 else { return false }
        }
        return octets[0] == "127"
    }

    /// `::1` in any of its RFC 4291 spellings (`0:0:0:0:0:0:0:1`), parsed by
    /// inet_pton; a zone (`%lo`) never gets this far.
    static func isIPv6Loopback(_ text: String) -> Bool {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return false }
        return withUnsafeBytes(of: &address) { Array($0) } == [UInt8](repeating: 0, count: 15) + [1]
    }
}
