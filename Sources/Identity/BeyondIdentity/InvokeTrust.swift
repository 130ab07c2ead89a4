import Tokens
import URLPolicy
import WebAuthnJSON

/// The one trust rule for invoke URLs: which application a request or a
/// binding belongs to, and whether everything it names belongs to that
/// application. RequestVerifier asks it before fetching a key set and after
/// reading the verified claims; the bind path before redeeming a link and
/// before making a passkey; the agent before following a redirect.
public struct InvokeTrust: Sendable {
    public let applications: [TrustedApplication]

    /// Entries of config.toml that cannot be used (a public suffix as RP ID,
    /// an issuer that is not https): left out, so they trust nothing.
    public let ignored: [InvokeTrustError]

    public init(applications: [TrustedApplication]) {
        self.applications = applications
        ignored = []
    }

    /// The trusted applications of config.toml: each `[invoke.application.NAME]`
    /// entry, then each `[invoke] trusted-hosts` entry as a whole-host
    /// application; an entry that cannot be used is left out (`ignored`).
    public init(entries: [TrustedApplication.Entry], trustedHosts: [String]) {
        var applications: [TrustedApplication] = []
        var ignored: [InvokeTrustError] = []
        for entry in entries {
            do {
                applications.append(try TrustedApplication(name: entry.name, issuer: entry.issuer, relyingParties: entry.relyingParties,
                                                           hosts: entry.hosts))
            } catch {
                ignored.append(error)
            }
        }
        for host in trustedHosts {
            do {
                applications.append(try TrustedApplication.wholeHost(host))
            } catch {
                ignored.append(error)
            }
        }
        self.applications = applications
        self.ignored = ignored
    }

    /// The application whose key set `jku` is (the longest matching prefix
    /// wins, so a tenant's own entry beats a whole-host one).
    public func application(forKeySet jku: String) throws(InvokeError) -> TrustedApplication {
        guard let application = bestMatch(where: { $0.contains(jku) }) else {
            throw .untrustedJWKSHost(Self.hostShown(jku))
        }
        return application
    }

    /// Everything a verified request names, against its application: the
    /// issuer under it, the RP ID one of its own with an origin that RP ID
    /// may use, the proof target (`base_url`) and `redirect_uri` on its hosts.
    public func check(_ request: AuthenticateRequest, issuer: String, application: TrustedApplication) throws(InvokeError) {
        guard application.contains(issuer) else { throw .wrongIssuer }
        guard application.allows(rpId: request.rpId, origin: request.origin) else {
            throw .foreignRelyingParty(rpId: String(request.rpId.prefix(253)), application: application.shown)
        }
        for (what, url) in [("its proof target (base_url)", request.baseURL), ("its redirect_uri", request.redirectURI)]
            where !application.isOnItsHosts(url) {
            throw .foreignHost(what: what, url: Endpoint.shown(url), application: application.shown)
        }
    }

    /// A binding's creation options, against the application whose realm
    /// began it: the RP ID one of its own with an origin that RP ID may use —
    /// the rule an authentication's RP ID meets too.
    public func check(binding options: PublicKeyCredentialCreationOptionsJSON, origin: String,
                      application: TrustedApplication) throws(InvokeError) {
        let rpId = options.rp.id ?? ""
        guard application.allows(rpId: rpId, origin: origin) else {
            throw .foreignRelyingParty(rpId: String(rpId.prefix(253)), application: application.shown)
        }
    }

    /// The application whose realm a bind URL or binding link names
    /// (`<api>/v1/tenants/T/realms/R`).
    public func application(forRealm apiBaseURL: String, tenantId: String, realmId: String) throws(InvokeError) -> TrustedApplication {
        let base = apiBaseURL.hasSuffix("/") ? String(apiBaseURL.dropLast()) : apiBaseURL
        guard PathSegment.isSafe(tenantId), PathSegment.isSafe(realmId) else { throw .invalidURL }
        let realm = base + "/v1/tenants/\(tenantId)/realms/\(realmId)"
        guard let application = bestMatch(where: { $0.ownsRealm(realm) && $0.isOnItsHosts(apiBaseURL) }) else {
            throw .untrustedApplication(Endpoint.shown(realm))
        }
        return application
    }

    /// The application a binding link (`<api>/v1/tenants/T/realms/R/identities/I/credential-binding-jobs/J:invokeAuthenticator`)
    /// belongs to: its realm, read from its path.
    public func application(forBindingLink link: String) throws(InvokeError) -> TrustedApplication {
        guard let parsed = URLLocation(link) else { throw .untrustedApplication(Endpoint.shown(link)) }
        let segments = parsed.path.split(separator: "/", omittingEmptySubsequences: false)
        guard let realms = segments.lastIndex(of: "realms"), realms + 1 < segments.count, realms >= 3,
              segments[realms - 2] == "tenants", segments[realms - 3] == "v1" else {
            throw .untrustedApplication(Endpoint.shown(link))
        }
        let base = segments[..<(realms - 3)].joined(separator: "/")
        let origin = "\(parsed.scheme)://\(parsed.host):\(parsed.port)"
        return try application(forRealm: origin + base, tenantId: String(segments[realms - 1]), realmId: String(segments[realms + 1]))
    }

    private func bestMatch(where matches: (TrustedApplication) -> Bool) -> TrustedApplication? {
        applications.filter(matches).max { $0.location.pathPrefix.count < $1.location.pathPrefix.count }
    }

    /// `host[:port]` of a URL for a message (no path, no query).
    static func hostShown(_ url: String) -> String {
        guard let parsed = URLLocation(url) else { return Endpoint.shown(url) }
        return parsed.port == URLLocation.defaultPort(parsed.scheme) ? parsed.host : "\(parsed.host):\(parsed.port)"
    }
}
