import Hummingbird

/// POST /idp/idx/challenge (`select-authenticator-authenticate`) and
/// /idp/idx/credential/enroll (`select-authenticator-enroll`):
/// `{"authenticator":{"id","methodType"}}`, one of the options offered.
/// Choosing the security key makes a fresh challenge.
extension IDXServer {
    func selectAuthenticate(_ request: Request) async -> Response {
        do throws(IDXRefusal) {
            let body = try await self.body(of: request)
            let transaction = try await self.transaction(body)
            let userId: String
            switch transaction.step {
            case .selectAuthenticate(let id), .webauthnChallenge(let id, _): userId = id
            default: throw notOffered("select-authenticator-authenticate", transaction)
            }
            guard let user = await store.user(id: userId) else { throw .sessionExpired }
            let chosen = try choice(body, among: authenticateOptions(user), transaction)
            let next: IDXRemediationStep = chosen.id == Self.securityKey.id
                ? .webauthnChallenge(userId: userId, challenge: Self.newChallenge())
                : .password(userId: userId, thenEnroll: false)
            return Self.ion(await render(try await move(transaction, to: next)))
        } catch {
            return await answer(error)
        }
    }

    func selectEnroll(_ request: Request) async -> Response {
        do throws(IDXRefusal) {
            let body = try await self.body(of: request)
            let transaction = try await self.transaction(body)
            let userId: String
            switch transaction.step {
            case .selectEnroll(let id), .webauthnEnroll(let id, _): userId = id
            default: throw notOffered("select-authenticator-enroll", transaction)
            }
            _ = try choice(body, among: [Self.securityKey], transaction)
            return Self.ion(await render(try await move(transaction, to: .webauthnEnroll(userId: userId, challenge: Self.newChallenge()))))
        } catch {
            return await answer(error)
        }
    }

    /// The offered authenticator the body names by id (and, when given, methodType).
    func choice(_ body: IDXWire.Body, among offered: [ION.Authenticator],
                _ transaction: IDXTransactionRecord) throws(IDXRefusal) -> ION.Authenticator {
        guard let id = body.authenticator?.id else {
            throw .field(["authenticator"], Self.blank.message, key: Self.blank.key, transaction)
        }
        guard let chosen = offered.first(where: { $0.id == id }),
              body.authenticator?.methodType == nil || body.authenticator?.methodType == chosen.methods[0].type else {
            throw .field(["authenticator"], "This authenticator is not one of the options offered: "
                         + offered.map { "\($0.displayName) (\($0.id), \($0.methods[0].type))" }.joined(separator: ", ") + ".",
                         key: "devserver.idx.authenticator_not_offered", transaction)
        }
        return chosen
    }
}
