import DevServerBase
import FoundationEssentials
import Hummingbird
import WebAuthn

/// POST /signin/verify (secret): the backend redeems a `verify_` token for
/// the outcome it stands for. Each token is accepted once.
extension DevServerAPI {
    struct SigninVerifyRequest: Decodable {
        var token: String?
    }

    /// The hosted verify object. `credentialId` is standard base64, as the
    /// hosted API writes a byte array; `rpId` is spelled as it serialises today.
    struct VerifyResponse: Encodable {
        let claims: VerifyTokenClaims

        private enum CodingKeys: String, CodingKey {
            case success, userId, timestamp, rpId, origin, device, country, nickname
            case credentialId, purpose, expiresAt, tokenId, type
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(true, forKey: .success)
            try c.encode(claims.userId, forKey: .userId)
            try c.encode(claims.timestamp, forKey: .timestamp)
            try c.encodeOrNull(claims.rpId, forKey: .rpId)
            try c.encodeOrNull(claims.origin, forKey: .origin)
            try c.encodeOrNull(claims.device, forKey: .device)
            try c.encodeOrNull(claims.country, forKey: .country)
            try c.encodeOrNull(claims.nickname, forKey: .nickname)
            try c.encodeOrNull(claims.credentialId.map { Data($0.bytes).base64EncodedString() }, forKey: .credentialId)
            try c.encodeOrNull(claims.purpose, forKey: .purpose)
            try c.encode(claims.expiresAt, forKey: .expiresAt)
            try c.encode(claims.tokenId, forKey: .tokenId)
            try c.encode(claims.type, forKey: .type)
        }
    }

    func signinVerify(_ request: Request) async throws(APIProblem) -> Response {
        let body = try await RequestJSON.decode(SigninVerifyRequest.self, from: request)
        let claims = try open(body.token, as: .verify, VerifyTokenClaims.self)
        try await store.spend(tokenId: claims.tokenId, expiresAt: claims.expiresAt, now: now, what: "verify token")
        return JSONResponse.ok(VerifyResponse(claims: claims))
    }
}
