import Hummingbird

/// POST /idp/idx/identify: `identifier` (a username this devserver knows),
/// `rememberMe` (accepted; there is no device to remember), and optionally
/// `credentials.passcode`, the single-form sign-in with a password.
extension IDXServer {
    static let blank = (message: "This field cannot be left blank", key: "model.validation.field.blank")
    static let incorrectPassword = (message: "Password is incorrect", key: "incorrectPassword")

    func identify(_ request: Request) async -> Response {
        do throws(IDXRefusal) {
            let body = try await self.body(of: request)
            let transaction = try await self.transaction(body)
            guard transaction.step == .identify else { throw notOffered("identify", transaction) }
            guard let identifier = body.identifier, !identifier.isEmpty else {
                throw .field(["identifier"], Self.blank.message, key: Self.blank.key, transaction)
            }
            guard identifier.utf8.count <= 256, let user = await store.user(named: identifier) else {
                throw .field(["identifier"], "There is no account with the Username \(identifier.prefix(256)).",
                             key: "idx.unknown.user", transaction)
            }
            var passwordVerified = false
            if let passcode = body.credentials?.passcode {
                guard user.passwordHash != nil else {
                    throw .topLevel("This user has no password; identify without credentials.", key: "devserver.idx.no_password", transaction)
                }
                guard passcode.utf8.count <= 256, await store.checkPassword(passcode, userId: user.id) else {
                    throw .topLevel(Self.incorrectPassword.message, key: Self.incorrectPassword.key, transaction, status: .unauthorized)
                }
                passwordVerified = true
            }
            return Self.ion(await render(try await proceed(transaction, user: user, passwordVerified: passwordVerified)))
        } catch {
            return await answer(error)
        }
    }

    /// A remediation posted while the transaction offers others.
    func notOffered(_ name: String, _ transaction: IDXTransactionRecord) -> IDXRefusal {
        .topLevel("\(name) is not one of the remediations this transaction offers now; introspect to see them.",
                  key: "devserver.idx.remediation_not_offered", transaction)
    }
}
