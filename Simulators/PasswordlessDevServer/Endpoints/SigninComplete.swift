import DevServerBase
import FoundationEssentials
import Hummingbird
import WebAuthn

/// POST /signin/complete (public): the client posts the assertion; the
/// server verifies it (WebAuthn L3 §7.2), records the new counter and
/// answers with a `verify_` token.
extension DevServerAPI {
    struct SigninCompleteRequest: Decodable {
        var session: String?
        var response: AuthenticationResponseJSON?
        var rpId: String?
        var origin: String?
    }

    func signinComplete(_ request: Request) async throws(APIProblem) -> Response {
        let body = try await RequestJSON.decode(SigninCompleteRequest.self, from: request)
        guard let response = body.response else { throw .invalidArgument("response is required.") }
        let origin = try allowList.checkOrigin(body.origin)
        let session = try await spendSession(body.session, ceremony: .signIn, SignInSession.self)
        try checkSameRpId(body.rpId, session: session.rpId)

        guard let stored = await store.credential(id: response.rawId.bytes) else {
            throw .unknownCredential(response.rawId.base64URL)
        }
        if let expected = session.expectedUserId, stored.userId != expected {
            throw .signInFailed("rawId: the credential belongs to another user than the one this sign-in began for.")
        }
        let publicKey: COSEKey
        do { publicKey = try COSEKey(encoded: stored.publicKey.bytes) } catch {
            throw .signInFailed("The stored public key of this credential is unreadable.")
        }
        let expectation = AuthenticationExpectation(
            challenge: session.challenge.bytes, allowedOrigins: [origin], rpId: session.rpId,
            userVerificationRequired: session.userVerification == .required,
            allowCredentials: session.allowCredentials.map(\.bytes),
            credential: CredentialRecord(id: stored.credentialId.bytes, publicKey: publicKey, signCount: stored.signCount,
                                         userHandle: Array(stored.userId.utf8), backupEligible: stored.backupEligible))
        let verified: VerifiedAuthentication
        do { verified = try RelyingParty.verifyAuthentication(response, expecting: expectation) } catch {
            throw .signInFailed(WebAuthnCeremony.reason(error))
        }
        try await store.recordSignIn(credentialId: verified.credentialId, signCount: verified.signCount,
                                     backupState: verified.backupState, at: now)

        let token = issueVerifyToken(
            type: "passkey_signin", userId: stored.userId, rpId: session.rpId, origin: origin, request: request,
            nickname: stored.nickname, credentialId: verified.credentialId, purpose: session.purpose,
            lifetime: configuration.verifyTokenLifetime)
        return JSONResponse.ok(TokenEnvelope(token: token))
    }
}
