import DevServerBase
import FoundationEssentials
import OAuthDevServer

/// Moving a transaction on: one step at a time (a step raced by another
/// request is refused), and the end, which issues the interaction code.
extension IDXServer {
    /// Moves `transaction` from its current step to `step`.
    func move(_ transaction: IDXTransactionRecord, to step: IDXRemediationStep) async throws(IDXRefusal) -> IDXTransactionRecord {
        if let moved = await store.advance(stateHandle: transaction.stateHandle, from: transaction.step, to: step, now: now) {
            return moved
        }
        guard case .found(let current) = await store.transaction(stateHandle: transaction.stateHandle, now: now) else {
            throw .sessionExpired
        }
        throw .topLevel("Another request moved this transaction on meanwhile; answer what it offers now.",
                        key: "devserver.idx.state_changed", current, status: .conflict)
    }

    /// The sign-in is complete: an interaction code (single-use, 60 s, bound
    /// to the interaction's client, redirect URI, PKCE challenge, nonce and
    /// scopes, redeemed at {issuer}/v1/token) and `successWithInteractionCode`.
    func succeed(_ transaction: IDXTransactionRecord, userId: String) async throws(IDXRefusal) -> IDXTransactionRecord {
        let interaction = transaction.interaction
        let authorization = Authorization(clientId: interaction.clientId, sub: userId, scopes: interaction.scopes, authTime: now,
                                          nonce: interaction.nonce)
        let record = CodeRecord(authorization: authorization, redirectURI: interaction.redirectURI,
                                codeChallenge: interaction.codeChallenge, expiresAt: now.addingTimeInterval(CodeRecord.lifetime),
                                interactionCode: true)
        let code: String
        do { code = try await oauth.store.issueCode(record, now: now) } catch {
            throw .topLevel("The devserver holds too many grants; try again later.", key: "devserver.idx.busy", transaction,
                            status: .serviceUnavailable)
        }
        return try await move(transaction, to: .success(userId: userId, interactionCode: code))
    }

    /// A fresh 32-byte WebAuthn challenge.
    static func newChallenge() -> [UInt8] { AppKeys.randomBytes(32) }

    /// After the user is identified (and, with `passwordVerified`, has given
    /// their password): signed in by the password when a key is enrolled;
    /// otherwise on to choose a key or the password, or to enroll a first
    /// key, after the password when the user has one.
    func proceed(_ transaction: IDXTransactionRecord, user: IDXUser, passwordVerified: Bool) async throws(IDXRefusal) -> IDXTransactionRecord {
        if passwordVerified {
            if user.enrollments.isEmpty { return try await move(transaction, to: .selectEnroll(userId: user.id)) }
            return try await succeed(transaction, userId: user.id)
        }
        if !user.enrollments.isEmpty { return try await move(transaction, to: .selectAuthenticate(userId: user.id)) }
        if user.passwordHash != nil { return try await move(transaction, to: .password(userId: user.id, thenEnroll: true)) }
        return try await move(transaction, to: .selectEnroll(userId: user.id))
    }
}
