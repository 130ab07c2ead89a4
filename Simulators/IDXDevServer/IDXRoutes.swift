import Hummingbird
import OAuthDevServer

/// The IDX subset's paths: interact under the issuer, the rest at the org
/// root under /idp/idx, as Okta serves them. None takes an API key.
package enum IDXRoutes {
    package static func add(to router: Router<BasicRequestContext>, server: IDXServer) {
        func on(_ path: String, _ handler: @escaping @Sendable (IDXServer, Request) async -> Response) {
            router.on(RouterPath(path), method: .post) { request, _ in await handler(server, request) }
        }
        let idx = IDXServer.basePath
        on(OAuthServer.issuerPath + "/v1/interact") { await $0.interact($1) }
        on(idx + "/introspect") { await $0.introspect($1) }
        on(idx + "/identify") { await $0.identify($1) }
        on(idx + "/challenge") { await $0.selectAuthenticate($1) }
        on(idx + "/credential/enroll") { await $0.selectEnroll($1) }
        on(idx + "/challenge/answer") { await $0.challengeAnswer($1) }
        on(idx + "/cancel") { await $0.cancel($1) }
    }
}
