import Hummingbird

/// POST /idp/idx/cancel: ends the stateHandle and starts the interaction
/// again at `identify` under a new stateHandle with a fresh lifetime, as
/// Okta's cancel answers.
extension IDXServer {
    func cancel(_ request: Request) async -> Response {
        do throws(IDXRefusal) {
            let body = try await self.body(of: request)
            guard let handle = body.stateHandle else { throw .badRequest("stateHandle is required.") }
            guard let fresh = await store.restart(stateHandle: handle, expiresAt: now.addingTimeInterval(stateLifetime), now: now) else {
                throw .sessionExpired
            }
            return Self.ion(await render(fresh))
        } catch {
            return await answer(error)
        }
    }
}
