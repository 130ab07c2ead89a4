import Hummingbird

/// The authorization server's paths. None takes an API key: OAuth clients
/// are identified by `client_id`.
package enum OAuthRoutes {
    package static func add(to router: Router<BasicRequestContext>, server: OAuthServer) {
        let base = OAuthServer.issuerPath
        func on(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping @Sendable (OAuthServer, Request) async -> Response) {
            router.on(RouterPath(path), method: method) { request, _ in await handler(server, request) }
        }
        on(.get, base + "/.well-known/openid-configuration") { $0.discovery($1) }
        on(.get, "/.well-known/oauth-authorization-server" + base) { $0.authorizationServerMetadata($1) }
        on(.get, base + "/v1/keys") { $0.keys($1) }
        on(.get, base + "/v1/authorize") { await $0.authorizePage($1) }
        on(.post, base + "/v1/authorize") { await $0.authorizeDecision($1) }
        on(.post, base + "/v1/token") { await $0.token($1) }
        on(.post, base + "/v1/device/authorize") { await $0.deviceAuthorization($1) }
        on(.post, base + "/v1/revoke") { await $0.revoke($1) }
        on(.get, base + "/v1/userinfo") { await $0.userInfo($1) }
        on(.post, base + "/v1/userinfo") { await $0.userInfo($1) }
        on(.get, OAuthServer.idpCallbackPath) { await $0.idpCallback($1) }
        on(.get, "/activate") { await $0.activatePage($1) }
        on(.post, "/activate") { await $0.activateDecision($1) }
    }
}
