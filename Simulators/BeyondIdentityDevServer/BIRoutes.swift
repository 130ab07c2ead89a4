import DevServerBase
import Hummingbird

/// The IdP's paths under /bi. OIDC and the proof take no API key (the
/// client authenticates at the token endpoint, the proof by its signature);
/// admin calls (identities, binding jobs) need the devserver's ApiSecret.
package enum BIRoutes {
    package static func add(to router: Router<BasicRequestContext>, server: BIServer, keyCheck: KeyCheck) {
        func on(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping @Sendable (BIServer, Request) async -> Response) {
            router.on(RouterPath(path), method: method) { request, _ in await handler(server, request) }
        }
        func admin(_ path: String, _ handler: @escaping @Sendable (BIServer, Request) async -> Response) {
            router.on(RouterPath(path), method: .post) { request, _ in
                try keyCheck.check(request, requires: .apiSecret)
                return await handler(server, request)
            }
        }
        let app = BIServer.applicationPath, realm = BIServer.realmPath
        on(.get, app + "/.well-known/openid-configuration") { $0.discovery($1) }
        on(.get, app + "/.well-known/jwks.json") { $0.keys($1) }
        on(.get, app + "/authorize") { await $0.authorize($1) }
        on(.post, app + "/token") { await $0.token($1) }
        on(.post, realm + "/transactions/:transaction/prove") { await $0.prove($1) }
        admin(realm + "/identities") { await $0.createIdentity($1) }
        admin(realm + "/identities/:identity/credential-binding-jobs") { await $0.createBindingJob($1) }
        // <job>:invokeAuthenticator, <job>:begin and <job>:complete are one
        // path segment each; the handlers split it.
        on(.get, realm + "/credential-binding-jobs/:job") { await $0.invokeAuthenticator($1) }
        on(.post, realm + "/identities/:identity/credential-binding-jobs/:step") { await $0.bindingStep($1) }
    }
}
