import Hummingbird

/// POST /idp/idx/challenge/answer: the answer to whichever challenge the
/// transaction holds — the password (`challenge-authenticator`), the
/// security key's assertion (`challenge-authenticator`) or its attestation
/// (`enroll-authenticator`). An `Origin` header, when sent, must be one of
/// the allowed origins.
extension IDXServer {
    func challengeAnswer(_ request: Request) async -> Response {
        do throws(IDXRefusal) {
            let body = try await self.body(of: request)
            let transaction = try await self.transaction(body)
            if let origin = request.headers[.origin], !allowedOrigins.contains(origin) {
                throw .topLevel("The Origin header \"\(origin.prefix(200))\" is not this org's origin (\(allowedOrigins.joined(separator: ", "))).",
                                key: "devserver.idx.origin_not_allowed", transaction, status: .forbidden)
            }
            let credentials = body.credentials ?? .init()
            let next: IDXTransactionRecord
            switch transaction.step {
            case .password(let userId, let thenEnroll):
                next = try await answerPassword(credentials, transaction, userId: userId, thenEnroll: thenEnroll)
            case .webauthnChallenge(let userId, let challenge):
                next = try await answerAssertion(credentials, transaction, userId: userId, challenge: challenge)
            case .webauthnEnroll(let userId, let challenge):
                next = try await answerAttestation(credentials, transaction, userId: userId, challenge: challenge)
            default:
                throw notOffered("challenge-authenticator / enroll-authenticator", transaction)
            }
            return Self.ion(await render(next))
        } catch {
            return await answer(error)
        }
    }

    private func answerPassword(_ credentials: IDXWire.Body.Credentials, _ transaction: IDXTransactionRecord, userId: String,
                                thenEnroll: Bool) async throws(IDXRefusal) -> IDXTransactionRecord {
        guard let passcode = credentials.passcode else {
            throw .field(["credentials", "passcode"], Self.blank.message, key: Self.blank.key, transaction)
        }
        guard passcode.utf8.count <= 256, await store.checkPassword(passcode, userId: userId) else {
            throw .field(["credentials", "passcode"], Self.incorrectPassword.message, key: Self.incorrectPassword.key, transaction,
                         status: .unauthorized)
        }
        if thenEnroll { return try await move(transaction, to: .selectEnroll(userId: userId)) }
        return try await succeed(transaction, userId: userId)
    }

    /// Spends the challenge before anything is checked: the transaction gets
    /// a fresh one, which a retry (or the error answer) carries.
    func spendChallenge(_ transaction: IDXTransactionRecord, _ fresh: IDXRemediationStep) async throws(IDXRefusal) -> IDXTransactionRecord {
        try await move(transaction, to: fresh)
    }

    /// A `credentials` member decoded from base64 or base64url; a missing or
    /// unreadable one is an error on its field.
    func binaryField(_ value: String?, _ name: String, _ transaction: IDXTransactionRecord) throws(IDXRefusal) -> [UInt8] {
        guard let value, !value.isEmpty else {
            throw .field(["credentials", name], Self.blank.message, key: Self.blank.key, transaction)
        }
        guard let bytes = IDXWire.binary(value), !bytes.isEmpty else {
            throw .field(["credentials", name], "\(name) is not base64 or base64url.", key: "devserver.idx.invalid_encoding", transaction)
        }
        return bytes
    }
}
