import DevServerBase
import FoundationEssentials
import Hummingbird

/// GET /users/list, GET /users/count and POST /users/delete (secret).
extension DevServerAPI {
    struct UserView: Encodable {
        let summary: DevServerStore.UserSummary

        private enum CodingKeys: String, CodingKey { case userId, aliasCount, aliases, credentialsCount, lastUsedAt }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(summary.userId, forKey: .userId)
            try c.encode(summary.aliases.count, forKey: .aliasCount)
            // Hashed aliases cannot be shown; only plaintext ones are listed.
            try c.encode(summary.aliases.compactMap(\.plaintext), forKey: .aliases)
            try c.encode(summary.credentialCount, forKey: .credentialsCount)
            try c.encodeOrNull(summary.lastUsedAt, forKey: .lastUsedAt)
        }
    }

    struct CountView: Encodable {
        let count: Int
    }

    func listUsers(_ request: Request) async throws(APIProblem) -> Response {
        JSONResponse.ok(ValuesEnvelope(values: await store.users().map(UserView.init)))
    }

    func countUsers(_ request: Request) async throws(APIProblem) -> Response {
        JSONResponse.ok(CountView(count: await store.userCount()))
    }

    /// Deletes the user's credentials and aliases; 200 with no body, as hosted.
    func deleteUser(_ request: Request) async throws(APIProblem) -> Response {
        let body = try await RequestJSON.decode(UserIdRequest.self, from: request)
        try await store.deleteUser(try Validation.userId(body.userId))
        return JSONResponse.emptyOK
    }
}
