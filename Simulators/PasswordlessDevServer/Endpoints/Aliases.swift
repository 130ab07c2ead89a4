import DevServerBase
import FoundationEssentials
import Hummingbird

/// POST /alias and GET /alias/list (secret): a user's aliases, the names
/// `/signin/begin` accepts in place of a user id.
extension DevServerAPI {
    struct SetAliasesRequest: Decodable {
        var userId: String?
        var aliases: [String]?
        var hashing: Bool?

        private enum CodingKeys: String, CodingKey { case userId, aliases, hashing }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            userId = try c.decodeLenientString(forKey: .userId)
            aliases = try c.decodeIfPresent([String].self, forKey: .aliases)
            hashing = try c.decodeIfPresent(Bool.self, forKey: .hashing)
        }
    }

    struct AliasView: Encodable {
        let alias: StoredAlias
        let tenant: String

        private enum CodingKeys: String, CodingKey { case userId, alias, plaintext, tenant }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(alias.userId, forKey: .userId)
            try c.encode(alias.hash, forKey: .alias)
            try c.encodeOrNull(alias.plaintext, forKey: .plaintext)
            try c.encode(tenant, forKey: .tenant)
        }
    }

    /// Replaces all of the user's aliases; 409 if one belongs to another user.
    func setAliases(_ request: Request) async throws(APIProblem) -> Response {
        let body = try await RequestJSON.decode(SetAliasesRequest.self, from: request)
        let userId = try Validation.userId(body.userId)
        let aliases = try Validation.aliases(body.aliases)
        let hashing = body.hashing ?? true
        try await store.setAliases(aliases.map {
            StoredAlias(userId: userId, hash: AliasHash.of($0, appId: keys.appId), plaintext: hashing ? nil : $0)
        }, userId: userId)
        return JSONResponse.noContent
    }

    func listAliases(_ request: Request) async throws(APIProblem) -> Response {
        let userId = try Validation.userId(request.uri.queryParameters["userId"].map(String.init))
        let aliases = await store.aliases(ofUser: userId)
        return JSONResponse.ok(ValuesEnvelope(values: aliases.map { AliasView(alias: $0, tenant: keys.appId) }))
    }
}
