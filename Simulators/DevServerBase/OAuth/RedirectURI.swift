/// A registered redirect URI and the rule for matching a presented one.
///
/// - Loopback (`http://127.0.0.1/…`, `http://[::1]/…`): any port is accepted
///   at request time (RFC 8252 §7.3); scheme, host, path and query must be the
///   registered ones exactly. The host is parsed out of the authority, never
///   prefix-matched, so `http://127.0.0.1.evil.example/callback` and
///   `http://127.0.0.1@evil.example/callback` fail.
/// - Everything else (`https://…`, private-use schemes such as
///   `com.example.app:/callback`, RFC 8252 §7.1): exact string comparison.
package struct RedirectURI: Sendable {
    static let maxLength = 2048

    /// The registered text (with any loopback port removed).
    package let registered: String
    /// For loopback URIs: the host as written (`127.0.0.1` or `[::1]`) and
    /// what follows the authority (`/callback`, with any query).
    private let loopback: (host: String, rest: String)?

    /// A registered URI, or nil when `registrationProblem` has a complaint.
    package init?(registered text: String) {
        guard Self.registrationProblem(text) == nil else { return nil }
        if let parts = Self.loopbackParts(text) {
            loopback = (parts.host, parts.rest)
            registered = "http://\(parts.host)\(parts.rest)"
        } else {
            loopback = nil
            registered = text
        }
    }

    package func matches(_ presented: String) -> Bool {
        guard presented.utf8.count <= Self.maxLength, !presented.contains("#") else { return false }
        guard let loopback else { return presented == registered }
        guard let parts = Self.loopbackParts(presented) else { return false }
        return parts.host == loopback.host && parts.rest == loopback.rest
    }

    /// Why `text` cannot be registered, or nil when it can.
    package static func registrationProblem(_ text: String) -> String? {
        guard (1...maxLength).contains(text.utf8.count) else { return "use 1 to \(maxLength) characters" }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            return "use printable ASCII without spaces"
        }
        guard !text.contains("#") else { return "a redirect URI has no fragment (RFC 6749 §3.1.2)" }
        guard let colon = text.firstIndex(of: ":"), isScheme(text[..<colon]) else { return "it has no scheme" }
        let scheme = text[..<colon]
        if scheme == "http" {
            guard let parts = loopbackParts(text, portOptional: true) else {
                return "plain http is only for the loopback literals http://127.0.0.1/… and http://[::1]/… (RFC 8252 §7.3, §8.3)"
            }
            guard parts.rest.hasPrefix("/") else { return "give a path, e.g. http://127.0.0.1/callback" }
            return nil
        }
        if scheme == "https" {
            return text.hasPrefix("https://") && text.count > "https://".count ? nil : "an https URI needs a host"
        }
        // A private-use scheme must be reverse-DNS (RFC 8252 §7.1) so it names its owner.
        guard scheme.contains(".") else {
            return "a private-use scheme is a reverse domain name such as com.example.app (RFC 8252 §7.1)"
        }
        guard text.count > scheme.count + 1 else { return "it has nothing after the scheme" }
        return nil
    }

    /// RFC 3986 scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), lowercase here.
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, first >= 0x61, first <= 0x7A else { return false }
        return text.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
    }

    /// Splits `http://<loopback literal>[:port]<rest>` where rest is empty or
    /// starts with `/` or `?`. The port, when present, is 1–65535 in decimal
    /// without leading zeros. Anything else (userinfo, other hosts) is nil.
    static func loopbackParts(_ text: String, portOptional: Bool = true) -> (host: String, rest: String)? {
        let prefix = "http://"
        guard text.hasPrefix(prefix) else { return nil }
        let afterScheme = text.dropFirst(prefix.count)
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" } ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        let rest = String(afterScheme[authorityEnd...])
        let host: Substring, portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if after.isEmpty { portText = nil } else {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
            portText = nil
        }
        guard host == "127.0.0.1" || host == "[::1]" else { return nil }
        if let portText {
            guard (1...5).contains(portText.utf8.count), portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  !portText.hasPrefix("0"), let port = Int(portText), port <= 65535 else { return nil }
        } else if !portOptional {
            return nil
        }
        return (String(host), rest)
    }
}
