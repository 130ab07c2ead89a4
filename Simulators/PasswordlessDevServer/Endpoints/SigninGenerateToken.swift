import DevServerBase
import FoundationEssentials
import Hummingbird

/// POST /signin/generate-token (secret): a `verify_` token for a user without
/// a ceremony (the hosted "generated sign-in", e.g. after a magic link).
extension DevServerAPI {
    struct GenerateTokenRequest: Decodable {
        var userId: String?
        var timeToLive: Int?
        var purpose: String?
        var rpId: String?
        var origin: String?

        private enum CodingKeys: String, CodingKey { case userId, timeToLive, purpose, rpId, origin }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            userId = try c.decodeLenientString(forKey: .userId)
            timeToLive = try c.decodeIfPresent(Int.self, forKey: .timeToLive)
            purpose = try c.decodeLenientString(forKey: .purpose)
            rpId = try c.decodeIfPresent(String.self, forKey: .rpId)
            origin = try c.decodeIfPresent(String.self, forKey: .origin)
        }
    }

    /// The hosted bounds on `timeToLive`: one second to seven days.
    static let timeToLiveRange = 1...604_800

    func signinGenerateToken(_ request: Request) async throws(APIProblem) -> Response {
        let body = try await RequestJSON.decode(GenerateTokenRequest.self, from: request)
        let userId = try Validation.userId(body.userId)
        let timeToLive = body.timeToLive ?? 120
        guard Self.timeToLiveRange.contains(timeToLive) else {
            throw .invalidArgument("timeToLive must be between 1 and 604800 seconds; got \(timeToLive).")
        }
        let token = issueVerifyToken(
            type: "generated_signin", userId: userId, rpId: body.rpId, origin: body.origin, request: request,
            nickname: nil, credentialId: nil, purpose: body.purpose ?? "sign-in",
            lifetime: .seconds(timeToLive))
        return JSONResponse.ok(TokenEnvelope(token: token))
    }
}
