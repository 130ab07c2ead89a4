import CPSL
import URLPolicy

/// The Public Suffix List's answers (libpsl), for RP IDs: which parent
/// domains of a host a site may claim. A WebAuthn RP ID must be a
/// registrable domain suffix of the origin's host (WebAuthn §5.1.3), so
/// `co.uk` or `github.io` never is one; `localhost` is the one single-label
/// name browsers accept.
enum RegistrableDomain {
    /// The newest list libpsl has: its built-in one or the system's
    /// (Debian's `publicsuffix` package), loaded once and kept.
    private nonisolated(unsafe) static let list: OpaquePointer? = psl_latest(nil)

    /// `host` and each of its parents down to its registrable domain
    /// (`auth.us.example.com` → itself, `us.example.com`, `example.com`); an
    /// IP address, `localhost` or a host that is itself a public suffix: just `host`.
    static func suffixes(of host: String) -> [String] {
        let host = host.lowercased()
        guard !isAddressOrLocal(host), let registrable = registrable(host) else { return [host] }
        var names = [host]
        var rest = Substring(host)
        while rest != registrable, let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            names.append(String(rest))
        }
        return names
    }

    /// Whether `name` may be an RP ID at all: not a public suffix (`com`,
    /// `co.uk`, `github.io`), except `localhost`; not empty, at most 253 bytes.
    static func mayBeRelyingParty(_ name: String) -> Bool {
        let name = name.lowercased()
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        if isAddressOrLocal(name) { return true }
        guard let list else { return false }
        return psl_is_public_suffix(list, name) == 0
    }

    /// (libpsl answers with a pointer into the string it was given: read it
    /// while that string lives.)
    private static func registrable(_ host: String) -> String? {
        guard let list else { return nil }
        return host.withCString { name in
            psl_registrable_domain(list, name).map { String(cString: $0) }
        }
    }

    /// IP literals and loopback names have no registrable domain.
    private static func isAddressOrLocal(_ host: String) -> Bool {
        LoopbackHost.isLoopback(host) || host.hasPrefix("[") || host.allSatisfy { $0.isNumber || $0 == "." }
    }
}
