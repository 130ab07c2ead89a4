import DevServerBase
import HTTPTypes
import Hummingbird
import IDXDevServer
import OAuthDevServer

/// Which web pages may talk to the devserver. Any page a browser shows can
/// send requests to 127.0.0.1; what keeps it from minting tokens is this:
/// - The passwordless.dev public API (`ApiKey` routes) is the one part
///   browsers call from other origins, as the hosted API allows: it alone
///   answers CORS (any origin, as the hosted API does).
/// - The secret API (`ApiSecret`) is server-to-server: no CORS, so no page
///   can read its answers (the secret header needs a preflight no one answers).
/// - Every other route — the OAuth/OIDC server, `/activate`, the BI-like
///   IdP, the IDX subset — answers only a request whose `Host` is the
///   devserver's own listen address (a DNS-rebound page sends its own name)
///   and whose `Origin`, when it has one, is the devserver's own origin
///   (the consent forms post from there) — for the IDX routes also one of
///   the org's configured origins (`--idx-origin`, its sign-in pages).
///   Anything else gets 403 before any handler runs, so a foreign page's
///   form post cannot approve a login or a device code. One exception:
///   `/idp/idx/challenge/answer` makes the same Origin check itself, to
///   answer in IDX's own form and keep the transaction going.
struct BrowserBoundary<Context: RequestContext>: RouterMiddleware {
    /// `http://HOST:PORT` as the devserver listens, known once it is bound.
    let issuerBox: IssuerBox
    /// Origins besides the devserver's own that the IDX routes take.
    let idxOrigins: [String]
    let cors: CORSMiddleware<Context>

    /// The public API's paths (passwordless-api.md §1).
    static var publicAPIPaths: Set<String> { ["/register/begin", "/register/complete", "/signin/begin", "/signin/complete"] }
    /// The secret API's paths: no CORS, and no Host rule (server clients may name the host as they reach it).
    static var secretAPIPaths: Set<String> {
        ["/register/token", "/signin/verify", "/signin/generate-token", "/alias", "/alias/list", "/credentials/list",
         "/credentials/delete", "/users/list", "/users/count", "/users/delete"]
    }

    init(issuerBox: IssuerBox, idxOrigins: [String], allowHeaders: [HTTPField.Name]) {
        self.issuerBox = issuerBox
        self.idxOrigins = idxOrigins
        cors = CORSMiddleware(allowOrigin: .all, allowHeaders: allowHeaders, allowMethods: [.get, .post, .options])
    }

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if Self.publicAPIPaths.contains(path) { return try await cors.handle(request, context: context, next: next) }
        if Self.secretAPIPaths.contains(path) { return try await next(request, context) }
        let own = issuerBox.origin
        let isIDX = path.hasPrefix(IDXServer.basePath + "/") || path == OAuthServer.issuerPath + "/v1/interact"
        let origins: [String]? = path == IDXServer.basePath + "/challenge/answer" ? nil : [own] + (isIDX ? idxOrigins : [])
        if let refusal = Self.refusal(request, ownOrigin: own, allowedOrigins: origins) { return JSONResponse.problem(refusal) }
        return try await next(request, context)
    }

    /// Why a request to a browser-facing route is refused, or nil.
    /// `allowedOrigins` nil: the route checks Origin itself.
    static func refusal(_ request: Request, ownOrigin: String, allowedOrigins: [String]?) -> APIProblem? {
        let authority = ownOrigin.hasPrefix("http://") ? String(ownOrigin.dropFirst("http://".count)) : ""
        // HTTP/1's Host arrives as the request's authority. Host names are
        // case-insensitive; the port and everything else must be exact.
        guard !authority.isEmpty, let host = request.head.authority, host.lowercased() == authority.lowercased() else {
            return APIProblem(.forbidden, "wrong_host", "This server answers only requests addressed to \(authority) (the Host header).",
                              detail: "A page of another name rebound to this address, or a proxy, is refused.")
        }
        // Every Origin field must be allowed (`null` is not: an opaque origin is
        // no page of ours). The foreign value is never echoed: a page chose it.
        guard let allowedOrigins else { return nil }
        let allowed = Set(allowedOrigins.map { $0.lowercased() })
        if request.headers[values: .origin].contains(where: { !allowed.contains($0.lowercased()) }) {
            return APIProblem(.forbidden, "foreign_origin", "Requests from other web pages are refused here.",
                              detail: "Only this server's own pages (origin \(ownOrigin)) may post to its OAuth, /activate, BI and IDX routes.")
        }
        return nil
    }
}
