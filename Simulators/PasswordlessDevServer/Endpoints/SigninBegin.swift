import DevServerBase
import FoundationEssentials
import Hummingbird
import WebAuthn

/// POST /signin/begin (public): request options for a sign-in by alias, by
/// user id, or discoverable (neither).
extension DevServerAPI {
    struct SigninBeginRequest: Decodable {
        var alias: String?
        var userId: String?
        var purpose: String?
        var rpId: String?
        var origin: String?

        private enum CodingKeys: String, CodingKey { case alias, userId, purpose, rpId, origin }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            alias = try c.decodeLenientString(forKey: .alias)
            userId = try c.decodeLenientString(forKey: .userId)
            purpose = try c.decodeLenientString(forKey: .purpose)
            rpId = try c.decodeIfPresent(String.self, forKey: .rpId)
            origin = try c.decodeIfPresent(String.self, forKey: .origin)
        }
    }

    func signinBegin(_ request: Request) async throws(APIProblem) -> Response {
        let body = try await RequestJSON.decode(SigninBeginRequest.self, from: request)
        _ = try allowList.checkOrigin(body.origin)
        let rpId = try allowList.checkRpId(body.rpId)

        // As the hosted API: a userId names the user; else an alias does (an
        // unknown alias gives an empty list, so it reveals nothing); else the
        // sign-in is discoverable.
        var expectedUserId: String?
        if let userId = body.userId, !userId.isEmpty {
            expectedUserId = userId
        } else if let alias = body.alias, !alias.isEmpty {
            expectedUserId = await store.userId(forAliasHash: AliasHash.of(alias, appId: keys.appId))
        }
        var allowCredentials: [PublicKeyCredentialDescriptorJSON] = []
        if let expectedUserId {
            allowCredentials = await store.credentials(ofUser: expectedUserId).filter { $0.rpId == rpId }.map {
                PublicKeyCredentialDescriptorJSON(id: $0.credentialId, transports: $0.transports.isEmpty ? nil : $0.transports)
            }
        }
        let purpose = body.purpose.flatMap { $0.isEmpty ? nil : $0 } ?? "sign-in"
        let userVerification = configuration.signInUserVerification
        let challenge = AppKeys.randomBytes(Self.challengeLength)
        let options = PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URLBytes(challenge), timeout: WebAuthnCeremony.timeout, rpId: rpId,
            allowCredentials: allowCredentials, userVerification: userVerification, hints: [])
        let session = SignInSession(
            tokenId: TokenID.make(), expiresAt: expiry(after: configuration.sessionLifetime), rpId: rpId,
            challenge: Base64URLBytes(challenge), allowCredentials: allowCredentials.map(\.id),
            userVerification: userVerification, purpose: purpose, expectedUserId: expectedUserId)
        return JSONResponse.ok(OptionsEnvelope(data: options, session: tokens.seal(session, as: .session)))
    }
}
