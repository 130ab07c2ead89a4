import Base64
import HTTPTransport
import Tokens
import URLPolicy

/// One authorization-code login's secrets — `state`, `nonce` and the PKCE
/// verifier — fresh from the system's random source, in memory only. Always
/// PKCE S256 and a nonce, also when discovery advertises neither (RFC 8252
/// §8.1; kubelogin skips PKCE then). Printing it shows none of them.
public struct AuthorizationRequest: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let state: String
    public let nonce: String
    public let pkce: PKCE
    public let redirectURI: String

    public init(redirectURI: String) {
        self.init(redirectURI: redirectURI, state: Self.randomToken(), nonce: Self.randomToken(), pkce: PKCE())
    }

    /// A request with given secrets: for replaying a known one (tests, the
    /// fuzz target). A login uses `init(redirectURI:)`.
    public init(redirectURI: String, state: String, nonce: String, pkce: PKCE) {
        self.redirectURI = redirectURI
        self.state = state
        self.nonce = nonce
        self.pkce = pkce
    }

    /// Parameters this request sets itself; `extra` cannot replace them.
    static let ownParameters: Set<String> = [
        "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method",
    ]

    /// The URL to open: the authorization endpoint with `response_type=code`,
    /// `client_id`, `redirect_uri`, `scope` (with `openid` first when the
    /// caller left it out: without it there is no ID token), `state`,
    /// `nonce`, `code_challenge` and `code_challenge_method=S256`, then
    /// `extra` (e.g. `("idp", …)`, `("login_hint", …)`) except names of the above.
    public func url(metadata: ProviderMetadata, clientId: String, scopes: [String], extra: [(String, String)] = []) -> String {
        var scope = scopes.filter { !$0.isEmpty }
        if !scope.contains("openid") { scope.insert("openid", at: 0) }
        var fields: [(String, String)] = [
            ("response_type", "code"), ("client_id", clientId), ("redirect_uri", redirectURI),
            ("scope", scope.joined(separator: " ")), ("state", state), ("nonce", nonce),
            ("code_challenge", pkce.challenge), ("code_challenge_method", pkce.method),
        ]
        fields += extra.filter { !Self.ownParameters.contains($0.0) }
        let query = PercentEncoding.query(fields)
        // RFC 6749 §3.1: a query the endpoint already has is kept.
        let endpoint = metadata.authorizationEndpoint
        return endpoint + (endpoint.contains("?") ? "&" : "?") + query
    }

    /// The authorization code from a redirect: a whole URL (pasted) or what
    /// the listener got. In this order: `state` present once and equal to
    /// ours (else `.stateMismatch`, and nothing else of the URL is trusted);
    /// then `error` (`.authorizationRefused`); then RFC 9207 `iss` (present:
    /// equal to the issuer; absent: refused when the provider says it sends
    /// it); then `code`. A redirect whose query cannot be read at all (no
    /// query, a bad percent escape, too long) has no readable `state`
    /// either: it is a `.stateMismatch` too, so the login waits on. Any web
    /// page can open a private-use-scheme callback such as `…?%zz`; were it
    /// a hard failure, that page could end the user's login in flight.
    public func code(fromRedirect url: String, metadata: ProviderMetadata) throws(OpenIDError) -> String {
        guard let parameters = try? RedirectParameters(url) else { throw .stateMismatch }
        guard let returned = parameters.single("state").value, returned == state else { throw .stateMismatch }
        switch parameters.single("error") {
        case .one(let code):
            let description = parameters.single("error_description").value
            throw .authorizationRefused(code: Self.shownErrorCode(code), description: TokenError.sanitised(description))
        case .repeated:
            throw .malformedRedirect("it carries `error` more than once")
        case .absent:
            break
        }
        switch parameters.single("iss") {
        case .one(let issuer):
            guard issuer == metadata.issuer else {
                throw .issuerMismatch(expected: metadata.issuer, got: TokenError.sanitised(issuer) ?? "")
            }
        case .repeated:
            throw .malformedRedirect("it carries `iss` more than once")
        case .absent:
            if metadata.authorizationResponseIssParameterSupported { throw .missingIssuer }
        }
        switch parameters.single("code") {
        case .one(let code) where !code.isEmpty: return code
        case .repeated: throw .malformedRedirect("it carries `code` more than once")
        default: throw .missingCode
        }
    }

    /// An OAuth error code as it may be shown: RFC 6749 §4.1.2.1 limits it
    /// to printable ASCII without `"` and `\`; anything else, or more than
    /// 64 characters, shows as "invalid error code".
    static func shownErrorCode(_ code: String) -> String {
        let printable = code.utf8.allSatisfy { (0x20...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C }
        return printable && !code.isEmpty && code.utf8.count <= 64 ? code : "invalid error code"
    }

    /// 32 random octets, base64url: as unguessable as a PKCE verifier.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    public var description: String { "AuthorizationRequest(redirectURI: \(redirectURI), state, nonce and PKCE verifier hidden)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["redirectURI": redirectURI]) }
}
