import Crypto
import DevServerBase
import FoundationEssentials
import Hummingbird
import WebAuthn

/// POST /register/begin (public): the client trades a register token for
/// creation options and a session.
extension DevServerAPI {
    struct RegisterBeginRequest: Decodable {
        var token: String?
        var rpId: String?
        var origin: String?
    }

    /// The algorithms offered, in the hosted API's order of preference but
    /// only those this server can verify: offering ES384 or PS512 and then
    /// refusing the credential would fail the user after their touch.
    static let offeredAlgorithms: [Int] = COSEAlgorithm.verifiable.map(\.rawValue)

    /// The challenge size fido2-net-lib uses.
    static let challengeLength = 16

    func registerBegin(_ request: Request) async throws(APIProblem) -> Response {
        let body = try await RequestJSON.decode(RegisterBeginRequest.self, from: request)
        let claims = try open(body.token, as: .register, RegisterTokenClaims.self)
        _ = try allowList.checkOrigin(body.origin)
        let rpId = try allowList.checkRpId(body.rpId)

        let existing = await store.credentials(ofUser: claims.userId)
        var attachment: AuthenticatorAttachment? = switch claims.authenticatorType {
        case "platform": .platform
        case "cross-platform": .crossPlatform
        default: nil
        }
        // As fido2-net-lib: the first hint decides the attachment.
        switch claims.hints.first {
        case .securityKey?, .hybrid?: attachment = .crossPlatform
        case .clientDevice?: attachment = .platform
        case nil: break
        }
        let challenge = AppKeys.randomBytes(Self.challengeLength)
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: PublicKeyCredentialRpEntity(id: rpId, name: rpId),
            user: PublicKeyCredentialUserEntityJSON(
                id: Base64URLBytes(Array(claims.userId.utf8)), name: claims.username, displayName: claims.displayName),
            challenge: Base64URLBytes(challenge),
            pubKeyCredParams: Self.offeredAlgorithms.map { PublicKeyCredentialParameters(alg: $0) },
            timeout: WebAuthnCeremony.timeout,
            excludeCredentials: existing.filter { $0.rpId == rpId }.map {
                PublicKeyCredentialDescriptorJSON(id: $0.credentialId, transports: $0.transports.isEmpty ? nil : $0.transports)
            },
            authenticatorSelection: AuthenticatorSelectionCriteria(
                authenticatorAttachment: attachment,
                residentKey: claims.discoverable ? .required : .discouraged,
                requireResidentKey: claims.discoverable,
                userVerification: claims.userVerification),
            hints: claims.hints,
            attestation: claims.attestation,
            attestationFormats: [],
            extensions: AuthenticationExtensionsClientInputsJSON(credProps: true))
        let session = RegistrationSession(
            tokenId: TokenID.make(), expiresAt: expiry(after: configuration.sessionLifetime), rpId: rpId,
            challenge: Base64URLBytes(challenge), userId: claims.userId,
            userVerification: claims.userVerification, algorithms: Self.offeredAlgorithms,
            aliases: claims.aliases, aliasHashing: claims.aliasHashing)
        return JSONResponse.ok(OptionsEnvelope(data: options, session: tokens.seal(session, as: .session)))
    }
}
