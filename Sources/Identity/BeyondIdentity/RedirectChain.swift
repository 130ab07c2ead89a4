import FoundationEssentials
import HTTPTransport
import Tokens
import URLPolicy

/// Follows the identity provider's redirect after a proof (Okta's callback
/// with the IdP's code, then Okta's redirect to the login) with plain GETs,
/// at most 10 hops, until it reaches a URL a login in flight waits for.
///
/// A redirect chain is the requester's words: each hop in between must be on
/// a host of the request's trusted application, or nothing is fetched — not
/// a loopback admin URL (`http://127.0.0.1:P/admin/delete-all`), not another
/// site (`TrustedApplication`'s one host rule: case and the default port do
/// not matter, a percent-encoded host is never on them). The URL a login
/// waits for is never fetched: it is handed over.
public struct RedirectChain: Sendable {
    public static let hopLimit = 10

    let application: TrustedApplication
    let transport: HTTPTransport

    public init(application: TrustedApplication, transport: HTTPTransport) {
        self.application = application
        self.transport = transport
    }

    /// The first URL of the chain that `isLoginRedirect` accepts.
    public func follow(from start: String, isLoginRedirect: (String) -> Bool) async throws(RedirectChainError) -> String {
        var url = start
        for _ in 0..<Self.hopLimit {
            if isLoginRedirect(url) { return url }
            // What is fetched is the URL the rule checked, rebuilt from its
            // parsed parts (`HTTP://Host:443/…` goes to `https://host/…`).
            guard let hop = URLLocation(url), application.isOnItsHosts(hop) else {
                throw .notFollowed(Endpoint.shown(url), application: application.shown)
            }
            let response: HTTPTransport.Response
            do { response = try await transport.send("GET", hop.url) } catch { throw .network(error) }
            guard (300..<400).contains(response.status), let location = response.header("Location"), location.utf8.count <= 16_384,
                  let next = URL(string: location, relativeTo: URL(string: hop.url))?.absoluteString else {
                throw .noRedirect(Endpoint.shown(url), status: response.status)
            }
            url = next
        }
        throw .tooManyHops
    }
}

public enum RedirectChainError: Error, Sendable, CustomStringConvertible {
    /// A hop that is neither a login's redirect nor on the application's hosts: not fetched.
    case notFollowed(String, application: String)
    /// A hop answered something other than a redirect.
    case noRedirect(String, status: Int)
    case tooManyHops
    case network(HTTPTransportError)

    public var description: String {
        switch self {
        case .notFollowed(let url, let application):
            return "the sign-in was redirected to \(url), which is neither a login in progress nor a host of \(application): not followed "
                + "(start `passkey login` before opening the sign-in, or add the host to the application's `hosts` in config.toml)"
        case .noRedirect(let url, let status):
            return "\(url) answered HTTP \(status) where a redirect back to the login was expected"
        case .tooManyHops:
            return "the sign-in was redirected more than \(RedirectChain.hopLimit) times without reaching the login"
        case .network(let error):
            return error.description
        }
    }
}
