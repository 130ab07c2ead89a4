import Hummingbird

/// POST /idp/idx/introspect: the transaction's current state, by the
/// interaction handle (`{"interactionHandle"}`) or by a stateHandle
/// (`{"stateToken"}`). Other members (client parameters) are ignored.
extension IDXServer {
    func introspect(_ request: Request) async -> Response {
        do throws(IDXRefusal) {
            let body = try await self.body(of: request)
            let lookup: IDXStore.Lookup
            switch (body.interactionHandle, body.stateToken ?? body.stateHandle) {
            case (let handle?, nil): lookup = await store.transaction(interactionHandle: handle, now: now)
            case (nil, let token?): lookup = await store.transaction(stateHandle: token, now: now)
            case (nil, nil): throw .badRequest("Send interactionHandle (from /v1/interact) or stateToken (a stateHandle).")
            case (_?, _?): throw .badRequest("Send interactionHandle or stateToken, not both.")
            }
            guard case .found(let transaction) = lookup else { throw .sessionExpired }
            return Self.ion(await render(transaction))
        } catch {
            return await answer(error)
        }
    }
}
