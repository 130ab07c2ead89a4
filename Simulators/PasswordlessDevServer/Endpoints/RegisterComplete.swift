import DevServerBase
import FoundationEssentials
import Hummingbird
import WebAuthn

/// POST /register/complete (public): the client posts the new credential;
/// the server verifies it (WebAuthn L3 §7.1), stores it and answers with a
/// `verify_` token the backend redeems at /signin/verify.
extension DevServerAPI {
    struct RegisterCompleteRequest: Decodable {
        var session: String?
        var response: RegistrationResponseJSON?
        var nickname: String?
        var rpId: String?
        var origin: String?

        private enum CodingKeys: String, CodingKey { case session, response, nickname, rpId, origin }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            session = try c.decodeIfPresent(String.self, forKey: .session)
            response = try c.decodeIfPresent(RegistrationResponseJSON.self, forKey: .response)
            nickname = try c.decodeLenientString(forKey: .nickname)
            rpId = try c.decodeIfPresent(String.self, forKey: .rpId)
            origin = try c.decodeIfPresent(String.self, forKey: .origin)
        }
    }

    static let maxNicknameLength = 64

    func registerComplete(_ request: Request) async throws(APIProblem) -> Response {
        let body = try await RequestJSON.decode(RegisterCompleteRequest.self, from: request)
        guard let response = body.response else { throw .invalidArgument("response is required.") }
        if let nickname = body.nickname, nickname.count > Self.maxNicknameLength {
            throw .invalidArgument("nickname must be at most \(Self.maxNicknameLength) characters.")
        }
        let origin = try allowList.checkOrigin(body.origin)
        let session = try await spendSession(body.session, ceremony: .registration, RegistrationSession.self)
        try checkSameRpId(body.rpId, session: session.rpId)

        let expectation = RegistrationExpectation(
            challenge: session.challenge.bytes, allowedOrigins: [origin], rpId: session.rpId,
            userVerificationRequired: session.userVerification == .required,
            allowedAlgorithms: session.algorithms)
        let verified: VerifiedRegistration
        do { verified = try RelyingParty.verifyRegistration(response, expecting: expectation) } catch {
            throw .registrationFailed(WebAuthnCeremony.reason(error))
        }

        let now = self.now
        let credential = RegisteredCredential(
            credentialId: Base64URLBytes(verified.credentialId), userId: session.userId,
            publicKey: Base64URLBytes(verified.publicKey.encoded()), signCount: verified.signCount,
            aaguid: Base64URLBytes(verified.aaguid), attestationFormat: verified.attestationFormat,
            transports: verified.transports, isDiscoverable: verified.residentKey,
            backupEligible: verified.backupEligible, backupState: verified.backupState,
            rpId: session.rpId, origin: origin, device: request.device, country: request.country,
            nickname: body.nickname, createdAt: now, lastUsedAt: now)
        let aliases = session.aliases.isEmpty ? nil : session.aliases.map {
            StoredAlias(userId: session.userId, hash: AliasHash.of($0, appId: keys.appId),
                        plaintext: session.aliasHashing ? nil : $0)
        }
        try await store.register(credential, aliases: aliases)

        let token = issueVerifyToken(
            type: "passkey_register", userId: session.userId, rpId: session.rpId, origin: origin, request: request,
            nickname: body.nickname, credentialId: verified.credentialId, purpose: nil,
            lifetime: configuration.verifyTokenLifetime)
        return JSONResponse.ok(TokenEnvelope(token: token))
    }
}
