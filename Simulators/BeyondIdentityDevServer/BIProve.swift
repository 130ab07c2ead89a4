import DevServerBase
import FoundationEssentials
import Hummingbird
import URLPolicy
import WebAuthn

/// POST BI/v1/tenants/t1/realms/r1/transactions/<id>/prove: our proof
/// protocol (Beyond Identity's is closed): a WebAuthn assertion over the
/// transaction's nonce, verified as strictly as the passwordless side's
/// sign-in (`RelyingParty.verifyAuthentication`: type, challenge, origin,
/// rpIdHash, UP, signature, counter). The transaction is spent by its first
/// presentation; a good proof answers with the redirect to the OIDC client.
extension BIServer {
    struct ProveRequest: Decodable {
        var jti: String?
        var credential: AuthenticationResponseJSON?
    }

    func prove(_ request: Request) async -> Response {
        do { return try await proveChecked(request) } catch { return error.response }
    }

    private func proveChecked(_ request: Request) async throws(BIError) -> Response {
        guard let transactionId = Self.pathSegment(request, after: Self.realmPath + "/transactions/", before: "/prove"),
              transactionId.isIdentifier(upTo: 64) else { throw .notFound("This transaction") }
        let body = try await BIRequestBody.decode(ProveRequest.self, from: request)
        guard let jti = body.jti, jti.isIdentifier(upTo: 64) else { throw .invalidRequest("jti (the request JWT's) is required.") }
        guard let credential = body.credential else { throw .invalidRequest("credential (an AuthenticationResponseJSON) is required.") }

        let transaction: BITransaction
        switch await store.spendTransaction(transactionId, jti: jti, now: now) {
        case .unknown, .wrongJTI:
            throw .invalidRequest("No transaction with this id and jti; start again at /authorize.")
        case .used:
            throw BIError(code: "transaction_used", description: "This transaction was already proved (or tried); start again at /authorize.")
        case .expired:
            throw BIError(code: "transaction_expired", description: "This transaction expired; start again at /authorize.")
        case .spent(let spent): transaction = spent
        }
        guard let passkey = await store.passkey(credentialId: credential.rawId.bytes),
              let identity = await store.identity(id: passkey.identityId) else {
            throw BIError(code: "credential_not_found", description: "No passkey of realm \(Self.realmId) has this credential id; bind one first.")
        }
        let expectation = AuthenticationExpectation(
            challenge: transaction.challenge, allowedOrigins: [configuration.origin], rpId: configuration.rpId,
            userVerificationRequired: false, allowCredentials: transaction.allowCredentials,
            credential: CredentialRecord(id: passkey.credentialId, publicKey: passkey.publicKey, signCount: passkey.signCount,
                                         userHandle: Array(identity.id.utf8), backupEligible: passkey.backupEligible))
        let verified: VerifiedAuthentication
        do { verified = try RelyingParty.verifyAuthentication(credential, expecting: expectation) } catch {
            throw BIError(code: "invalid_signature", description: WebAuthnCeremony.reason(error))
        }
        await store.recordSignCount(credentialId: verified.credentialId, verified.signCount)
        guard !configuration.deniedUsers.contains(identity.username) else {
            throw BIError(code: "policy_denied", description: "The identity \(identity.username) is suspended in realm \(Self.realmId).",
                          status: .forbidden)
        }
        let code: String
        do {
            code = try await store.issueCode(BICode(
                username: identity.username, redirectURI: transaction.redirectURI, clientNonce: transaction.clientNonce,
                codeChallenge: transaction.codeChallenge, authTime: now, expiresAt: now.addingTimeInterval(BICode.lifetime)), now: now)
        } catch { throw .busy }
        let separator = transaction.redirectURI.contains("?") ? "&" : "?"
        let redirect = transaction.redirectURI + separator + PercentEncoding.query([("code", code), ("state", transaction.state)])
        return OAuthResponse.json(["redirect_url": redirect])
    }

    /// The one path segment between `prefix` and `suffix` (`suffix` "" for
    /// the last one); nil when the path has another shape.
    static func pathSegment(_ request: Request, after prefix: String, before suffix: String) -> String? {
        BIWire.pathSegment(request.uri.path, after: prefix, before: suffix)
    }
}
