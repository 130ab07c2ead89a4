import FoundationEssentials
import Tokens
import URLPolicy

/// RFC 8414 authorization-server metadata, read only for the endpoints an
/// OpenID discovery document leaves out: some providers (django-oauth-toolkit)
/// name `revocation_endpoint` only there, and some have a device endpoint
/// that neither document lists (then `passkey login --device-authorization-endpoint`).
enum AuthorizationServerMetadata {
    /// RFC 8414 §3.1: `/.well-known/oauth-authorization-server` goes between
    /// the host and the issuer's path (its trailing `/` removed), not after
    /// the path as OpenID discovery's suffix does.
    static func url(issuer: String) -> String? {
        let scheme = issuer.hasPrefix("https://") ? "https://" : issuer.hasPrefix("http://") ? "http://" : nil
        guard let scheme else { return nil }
        let afterScheme = issuer.dropFirst(scheme.count)
        let pathStart = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        var path = String(afterScheme[pathStart...])
        while path.hasSuffix("/") { path.removeLast() }
        return String(issuer[..<pathStart]) + "/.well-known/oauth-authorization-server" + path
    }

    /// The endpoints the document adds, or nil when it is not for `issuer`
    /// (RFC 8414 §3.3: metadata whose `issuer` differs MUST NOT be used) or
    /// is not a JSON object of the members we read (a web app's catch-all
    /// page answering 200 is common, and no reason to refuse the provider).
    /// An endpoint the document does name for this issuer must pass the same
    /// `Endpoint` rule as discovery's; one that does not is an error.
    static func endpoints(document bytes: [UInt8], issuer: String, url: String)
        throws(OpenIDError) -> (revocation: String?, deviceAuthorization: String?)? {
        guard let document = try? JSONDecoder().decode(Document.self, from: Data(bytes)), document.issuer == issuer else { return nil }
        for case let (member, value?) in [("revocation_endpoint", document.revocation_endpoint),
                                          ("device_authorization_endpoint", document.device_authorization_endpoint)] {
            if let problem = Endpoint.problem(value) {
                throw .discovery(url: url, reason: "`\(member)` \"\(Endpoint.shown(value))\" cannot be used: \(problem)")
            }
        }
        return (document.revocation_endpoint, document.device_authorization_endpoint)
    }

    private struct Document: Decodable {
        var issuer: String?
        var revocation_endpoint: String?
        var device_authorization_endpoint: String?
    }
}
