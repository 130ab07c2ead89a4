import URLPolicy
#if canImport(Glibc)
import Glibc
#endif

/// A WebAuthn caller origin (`https://host[:port]`) and the relying party
/// ids it may use (WebAuthn L3 §5.1.3 step 7, §5.1.4.1 step 7).
///
/// Without the Public Suffix List this accepts an rpId that is the host or
/// any parent domain with at least one dot (`localhost` is allowed as is);
/// browsers additionally refuse public suffixes such as `co.uk`.
public struct WebAuthnOrigin: Sendable, Equatable {
    public var serialization: String
    public var scheme: String
    public var host: String

    public init(_ text: String) throws(CeremonyError) {
        guard let schemeEnd = text.firstRange(of: "://") else {
            throw .invalidOptions("origin \"\(text)\" must look like https://example.org")
        }
        scheme = String(text[..<schemeEnd.lowerBound]).lowercased()
        let rest = text[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" }
        guard rest.dropFirst(authority.count).allSatisfy({ $0 == "/" }), rest.count <= authority.count + 1 else {
            throw .invalidOptions("origin \"\(text)\" must not have a path")
        }
        // An origin is a scheme, a host and a port (RFC 6454 §4): user
        // information is no part of it, and would otherwise be read as host.
        guard !authority.contains("@") else {
            throw .invalidOptions("origin \"\(text)\" must not have user information")
        }
        var hostPart = Substring(authority)
        var portPart: Substring?
        if authority.hasPrefix("[") {
            // An IPv6 literal: its own colons are inside the brackets, the port after them.
            guard let close = authority.firstIndex(of: "]"), Self.isIPv6(authority[authority.index(after: authority.startIndex)..<close])
            else { throw .invalidOptions("origin \"\(text)\" has a bad host") }
            hostPart = authority[...close]
            let after = authority[authority.index(after: close)...]
            if let colon = after.first {
                guard colon == ":" else { throw .invalidOptions("origin \"\(text)\" has a bad host") }
                portPart = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        var port: Int?
        // As a URL's port (WHATWG URL, "port state"): decimal digits only (no
        // sign, no spaces), leading zeros allowed, at most 65535; empty is no port.
        if let portPart, !portPart.isEmpty {
            let significant = portPart.drop { $0 == "0" }
            guard portPart.utf8.allSatisfy({ (48...57).contains($0) }), significant.utf8.count <= 5,
                  // A failable parse of at most 5 digits: nil, never a trap, for anything else.
                  let value = significant.isEmpty ? 0 : Int(significant, radix: 10), value <= 65535 else {
                throw .invalidOptions("origin \"\(text)\" has a bad port")
            }
            port = value
        }
        host = hostPart.lowercased()
        guard !host.isEmpty else { throw .invalidOptions("origin \"\(text)\" has no host") }
        // No forbidden host code point (WHATWG URL: a query or a fragment is
        // no part of an origin), percent sign, space or control character;
        // colons and brackets only in an IPv6 literal.
        guard host.hasPrefix("[") || !host.unicodeScalars.contains(where: { ":[]".unicodeScalars.contains($0) }),
              !host.unicodeScalars.contains(where: { "?#\\%<>^|".unicodeScalars.contains($0) || $0.properties.isWhitespace
                                                      || $0.properties.generalCategory == .control }) else {
            throw .invalidOptions("origin \"\(text)\" has a bad host")
        }
        // WebAuthn needs a secure context: https, or http on this machine for
        // development — localhost, or a loopback address, which Secure
        // Contexts §3.2 counts as potentially trustworthy too (a devserver's
        // Okta-like issuer is http://127.0.0.1:PORT, and IDX uses its origin).
        guard scheme == "https" || (scheme == "http" && LoopbackHost.isSecureContextHost(host)) else {
            throw .invalidOptions("origin \"\(text)\" must use https (http only on localhost or a loopback address)")
        }
        // The scheme's default port is not written (HTML's serialization of
        // an origin): `https://example.org:443` is `https://example.org`, as a
        // browser puts it in clientDataJSON and a relying party expects it.
        let defaultPort = scheme == "https" ? 443 : 80
        serialization = scheme + "://" + host + (port.map { $0 == defaultPort ? "" : ":\($0)" } ?? "")
    }

    /// The rpId to use: the given one if this origin may use it, else the host.
    public func relyingPartyId(_ requested: String?) throws(CeremonyError) -> String {
        guard let requested else { return host }
        let rpId = requested.lowercased()
        // An IP address has no parent domains: only the address itself (HTML's
        // "is a registrable domain suffix of or is equal to").
        let isParent = !isIPAddress && host.hasSuffix("." + rpId) && rpId.contains(".")
        guard rpId == host || isParent else { throw .originNotAllowed(origin: serialization, rpId: requested) }
        return rpId
    }

    /// The host is an IP literal: bracketed IPv6, or a name whose last label
    /// is a number, which a URL parser reads as an IPv4 address (WHATWG URL,
    /// "ends in a number").
    var isIPAddress: Bool {
        if host.hasPrefix("[") { return true }
        var labels = host.split(separator: ".", omittingEmptySubsequences: false)
        // One trailing dot is dropped first (`1.2.3.4.` is still an address).
        if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }
        guard let last = labels.last, !last.isEmpty else { return false }
        if last.lowercased().hasPrefix("0x") { return last.dropFirst(2).allSatisfy(\.isHexDigit) }
        return last.utf8.allSatisfy { (48...57).contains($0) }
    }

    /// Whether the text inside an IPv6 literal's brackets is an IPv6 address.
    private static func isIPv6(_ text: Substring) -> Bool {
        var address = in6_addr()
        return !text.isEmpty && text.utf8.count <= 64 && inet_pton(AF_INET6, String(text), &address) == 1
    }
}
