#if canImport(Glibc)
import Glibc
#endif

/// Which host names can only mean this machine: the one rule for tokens sent
/// over http (`Tokens`' `Endpoint`), http WebAuthn origins (`WebAuthnClient`),
/// git's http credential requests and the devserver's listen address, which
/// may not depend on each other.
public enum LoopbackHost {
    /// `localhost` itself, an IPv4 literal in 127.0.0.0/8 written as four
    /// decimal octets, or `[::1]` in any spelling (a URL's bracketed host).
    /// Names that merely start with "127." or end in "localhost." are DNS
    /// names anyone can point anywhere; other spellings of 127.0.0.1
    /// (`0x7f.1`, `2130706433`, `0177.0.0.1`, `127.0.0.01`) are refused rather
    /// than interpreted.
    public static func isLoopback(_ host: String) -> Bool {
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

    /// `isLoopback` for a host written as a listen address is: IPv6 without
    /// brackets (`::1`; `[::1]` is not an address but a URL's spelling).
    public static func isLoopbackAddress(_ host: String) -> Bool {
        host.contains(":") ? isIPv6Loopback(host) : isLoopback(host)
    }

    /// A host whose http origin is a secure context (W3C Secure Contexts
    /// §3.1, "potentially trustworthy"): a loopback host as `isLoopback` says,
    /// or a name under `localhost.` (RFC 6761 §6.3 keeps it on this machine).
    /// Only for an origin's text — a WebAuthn `http://` origin, where no
    /// connection is made; a connection to `*.localhost` goes through DNS,
    /// so `isLoopback` refuses it.
    public static func isSecureContextHost(_ host: String) -> Bool {
        isLoopback(host) || host.lowercased().hasSuffix(".localhost")
    }

    /// `::1` in any of its RFC 4291 spellings (`0:0:0:0:0:0:0:1`), unbracketed,
    /// parsed by inet_pton; a zone (`%lo`) or a v4-mapped address is not it.
    public static func isIPv6Loopback(_ text: String) -> Bool {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return false }
        return withUnsafeBytes(of: &address) { Array($0) } == [UInt8](repeating: 0, count: 15) + [1]
    }
}
