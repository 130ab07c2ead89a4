import LoopbackHost

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
        var hostPart = Substring(authority)
        if let colon = authority.lastIndex(of: ":"), !authority.hasPrefix("[") {
            guard Int(authority[authority.index(after: colon)...]) != nil else {
                throw .invalidOptions("origin \"\(text)\" has a bad port")
            }
            hostPart = authority[..<colon]
        }
        host = hostPart.lowercased()
        guard !host.isEmpty else { throw .invalidOptions("origin \"\(text)\" has no host") }
        // WebAuthn needs a secure context: https, or http on this machine for
        // development — localhost, or a loopback address, which Secure
        // Contexts §3.2 counts as potentially trustworthy too (a devserver's
        // Okta-like issuer is http://127.0.0.1:PORT, and IDX uses its origin).
        guard scheme == "https" || (scheme == "http" && LoopbackHost.isSecureContextHost(host)) else {
            throw .invalidOptions("origin \"\(text)\" must use https (http only on localhost or a loopback address)")
        }
        serialization = scheme + "://" + authority.lowercased()
    }

    /// The rpId to use: the given one if this origin may use it, else the host.
    public func relyingPartyId(_ requested: String?) throws(CeremonyError) -> String {
        guard let requested else { return host }
        let rpId = requested.lowercased()
        let isParent = host.hasSuffix("." + rpId) && rpId.contains(".")
        guard rpId == host || isParent else { throw .originNotAllowed(origin: serialization, rpId: requested) }
        return rpId
    }
}
