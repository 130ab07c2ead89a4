import DevServerBase
import Hummingbird

/// The passwordless.dev API's paths: the secret API takes the `ApiSecret`
/// header, the public API the `ApiKey` header, checked before any handler runs.
package enum PasswordlessRoutes {
    package static func add(to router: Router<BasicRequestContext>, api: DevServerAPI, keyCheck: KeyCheck) {
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
    }
}
