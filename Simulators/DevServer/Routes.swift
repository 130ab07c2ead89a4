import BeyondIdentityDevServer
import DevServerBase
import HTTPTypes
import Hummingbird
import IDXDevServer
import Logging
import OAuthDevServer
import PasswordlessDevServer

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
        // The passwordless.dev API: the secret API (ApiSecret) and the public API (ApiKey).
        PasswordlessRoutes.add(to: router, api: api, keyCheck: keyCheck)

        // The OAuth 2.0 / OpenID Connect authorization server (no API key).
        OAuthRoutes.add(to: router, server: oauth)
        // The Beyond-Identity-like IdP under /bi (its admin calls take the ApiSecret).
        BIRoutes.add(to: router, server: bi, keyCheck: keyCheck)
        // The Okta Identity Engine (IDX) subset: {issuer}/v1/interact and /idp/idx.
        IDXRoutes.add(to: router, server: idx)
        return router
    }
}
