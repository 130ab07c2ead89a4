import FoundationEssentials
import Tokens
import URLPolicy

/// An identity provider application the person trusts with invoke URLs —
/// an issuer (scheme, host, port and path prefix: tenant, realm,
/// application), not a whole host: on a multi-tenant host every customer's
/// key sets live side by side, and trusting the host would trust them all.
///
/// Everything a request names must belong to it (`InvokeTrust` applies
/// this): its key set and issuer under the prefix; the RP ID the key signs
/// for among `relyingParties`; the proof target, the redirects and the API
/// of a binding on its `hosts`.
///
/// This is the one trusted-host rule: every URL is compared as a parsed
/// `URLLocation`, never as text — scheme and host lowercased
/// (`AUTH.Example.com` is `auth.example.com`), the port explicit (`:443`
/// on https is the default port, the same host), and a percent-encoded
/// host refused everywhere (in config.toml and in what a request names):
/// it could decode into another host than it reads as.
public struct TrustedApplication: Sendable, Equatable {
    /// The name the person gave it in config.toml (`[invoke.application.NAME]`).
    public let name: String
    /// Where it lives: scheme (nil: any usable one), host, port (nil: the
    /// scheme's default) and path prefix ("" for a whole host).
    let location: URLLocation.Pattern
    /// RP IDs its passkeys may be used for.
    public let relyingParties: [String]
    /// Hosts (with their ports) its API, proof and redirects may be on; its own first.
    let hosts: [URLLocation.Pattern]

    /// `issuer`: the application's URL (`https://auth.example.com/v1/tenants/T/realms/R/applications/A`).
    /// `relyingParties`: nil means the issuer host and its parents down to its
    /// registrable domain. `hosts`: further `host[:port]`s (an Okta tenant
    /// whose callback the sign-in returns to).
    public init(name: String, issuer: String, relyingParties: [String]? = nil, hosts: [String] = []) throws(InvokeTrustError) {
        guard let parsed = URLLocation(issuer), parsed.query == nil else {
            throw .init(name, "its issuer \(Endpoint.shown(issuer)) is not an https:// URL (http:// only on loopback) without a query")
        }
        let prefix = parsed.path.hasSuffix("/") ? String(parsed.path.dropLast()) : parsed.path
        try self.init(name: name, location: URLLocation.Pattern(scheme: parsed.scheme, host: parsed.host, port: parsed.port, pathPrefix: prefix),
                      relyingParties: relyingParties, hosts: hosts)
    }

    /// A `[invoke] trusted-hosts` entry (`host` or `host:port`): the whole
    /// host as one application, as before trusted applications existed —
    /// its RP IDs the host's own and its parents to its registrable domain.
    public static func wholeHost(_ entry: String) throws(InvokeTrustError) -> TrustedApplication {
        guard let pattern = URLLocation.Pattern(hostAndPort: entry) else {
            throw .init(entry, "`\(entry.prefix(100))` in [invoke] trusted-hosts is not `host` or `host:port`")
        }
        return try TrustedApplication(name: entry.lowercased(), location: pattern, relyingParties: nil, hosts: [])
    }

    private init(name: String, location: URLLocation.Pattern, relyingParties: [String]?, hosts: [String]) throws(InvokeTrustError) {
        self.name = name
        self.location = location
        var others: [URLLocation.Pattern] = []
        for entry in hosts {
            guard let pattern = URLLocation.Pattern(hostAndPort: entry) else {
                throw .init(name, "`\(entry.prefix(100))` in its hosts is not `host` or `host:port`")
            }
            others.append(pattern)
        }
        self.hosts = [URLLocation.Pattern(scheme: location.scheme, host: location.host, port: location.port, pathPrefix: "")] + others
        let names = relyingParties?.map { $0.lowercased() } ?? RegistrableDomain.suffixes(of: location.host)
        for rp in names where !RegistrableDomain.mayBeRelyingParty(rp) {
            throw .init(name, "`\(rp.prefix(100))` in its rp-ids is a public suffix, which no site may use as an RP ID")
        }
        guard !names.isEmpty else { throw .init(name, "its rp-ids are empty") }
        self.relyingParties = names
    }

    /// A trusted application as config.toml names it (`[invoke.application.NAME]`).
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var issuer: String
        /// nil: the issuer host and its parents down to its registrable domain.
        public var relyingParties: [String]?
        public var hosts: [String]

        public init(name: String, issuer: String, relyingParties: [String]? = nil, hosts: [String] = []) {
            self.name = name
            self.issuer = issuer
            self.relyingParties = relyingParties
            self.hosts = hosts
        }
    }

    /// How the person reads it: `https://auth.example.com/v1/tenants/T/…`.
    public var shown: String { location.shown }

    /// Whether `url` is under this application (its key set, its issuer).
    func contains(_ url: String) -> Bool {
        guard let parsed = URLLocation(url) else { return false }
        return location.matches(parsed)
    }

    /// Whether `url` is on one of this application's hosts (a proof target,
    /// an API root, a redirect worth following).
    public func isOnItsHosts(_ url: String) -> Bool {
        guard let parsed = URLLocation(url) else { return false }
        return isOnItsHosts(parsed)
    }

    public func isOnItsHosts(_ location: URLLocation) -> Bool {
        hosts.contains { $0.matches(location) }
    }

    /// Whether the realm at `realmURL` (`<api>/v1/tenants/T/realms/R`) is
    /// this application's: the realm is under the application's prefix, or
    /// the application is one of the realm's (its prefix lies inside it).
    func ownsRealm(_ realmURL: String) -> Bool {
        guard let realm = URLLocation(realmURL), realm.query == nil else { return false }
        if location.matches(realm) { return true }
        let realmPath = realm.path.hasSuffix("/") ? String(realm.path.dropLast()) : realm.path
        return location.sameOrigin(realm) && !realmPath.isEmpty && location.pathPrefix.hasPrefix(realmPath + "/")
    }

    /// Whether the key may sign for `rpId` here: one of the application's
    /// RP IDs, with a WebAuthn origin that RP ID may use (its host or a
    /// subdomain of it; https, or http only on loopback; nothing after it).
    func allows(rpId: String, origin: String) -> Bool {
        relyingParties.contains(rpId.lowercased()) && (try? RequestClaims.checkWebAuthnOrigin(origin, rpId: rpId)) != nil
    }
}

/// A trusted application in config.toml that cannot be used: which, and why.
public struct InvokeTrustError: Error, Sendable, Equatable, CustomStringConvertible {
    public var application: String
    public var reason: String

    init(_ application: String, _ reason: String) {
        self.application = String(application.prefix(100))
        self.reason = reason
    }

    public var description: String { "[invoke] trusted application \(application): \(reason); it is ignored" }
}
