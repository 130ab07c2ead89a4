import HTTPTypes
import Hummingbird
import Logging

/// The endpoint table: which header each path needs and which handler answers.
enum Routes {
    static func router(api: DevServerAPI, oauth: OAuthServer, bi: BIServer, idx: IDXServer, logger: Logger) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: RequestLogMiddleware(logger: logger))
        // CORS (any origin, as the hosted API) on the public API alone; the
        // OAuth, /activate, BI and IDX routes take only their own Host and Origin.
        router.add(middleware: BrowserBoundary(
            issuerBox: oauth.issuerBox, idxOrigins: idx.configuration.origins,
            allowHeaders: [.contentType, .accept, KeyCheck.Header.apiKey.fieldName, HTTPField.Name("Client-Version") ?? .accept]))
        router.add(middleware: ProblemMiddleware(logger: logger))

        let keyCheck = KeyCheck(keys: api.keys)
        func on(_ method: HTTPRequest.Method, _ path: RouterPath, _ header: KeyCheck.Header,
                _ handler: @escaping @Sendable (DevServerAPI, Request) async throws -> Response) {
            router.on(path, method: method) { (request: Request, _: BasicRequestContext) async throws -> Response in
                try keyCheck.check(request, requires: header)
                return try await handler(api, request)
            }
        }

        // Secret API (ApiSecret).
        on(.post, "/register/token", .apiSecret) { try await $0.registerToken($1) }
        on(.post, "/signin/verify", .apiSecret) { try await $0.signinVerify($1) }
        on(.post, "/signin/generate-token", .apiSecret) { try await $0.signinGenerateToken($1) }
        on(.post, "/alias", .apiSecret) { try await $0.setAliases($1) }
        on(.get, "/alias/list", .apiSecret) { try await $0.listAliases($1) }
        on(.get, "/credentials/list", .apiSecret) { try await $0.listCredentials($1) }
        on(.post, "/credentials/list", .apiSecret) { try await $0.listCredentials($1) }
        on(.post, "/credentials/delete", .apiSecret) { try await $0.deleteCredential($1) }
        on(.get, "/users/list", .apiSecret) { try await $0.listUsers($1) }
        on(.get, "/users/count", .apiSecret) { try await $0.countUsers($1) }
        on(.post, "/users/delete", .apiSecret) { try await $0.deleteUser($1) }

        // Public API (ApiKey).
        on(.post, "/register/begin", .apiKey) { try await $0.registerBegin($1) }
        on(.post, "/register/complete", .apiKey) { try await $0.registerComplete($1) }
        on(.post, "/signin/begin", .apiKey) { try await $0.signinBegin($1) }
        on(.post, "/signin/complete", .apiKey) { try await $0.signinComplete($1) }

        // The OAuth 2.0 / OpenID Connect authorization server (no API key).
        OAuthRoutes.add(to: router, server: oauth)
        // The Beyond-Identity-like IdP under /bi (its admin calls take the ApiSecret).
        BIRoutes.add(to: router, server: bi, keyCheck: keyCheck)
        // The Okta Identity Engine (IDX) subset: {issuer}/v1/interact and /idp/idx.
        IDXRoutes.add(to: router, server: idx)
        return router
    }
}
