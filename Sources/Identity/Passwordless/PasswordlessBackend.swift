import FoundationEssentials
import HTTPTransport

/// The secret half of the API (header `ApiSecret`) that an app's backend
/// calls: create a register token, verify a sign-in token. `passkey demo`
/// and the tests play the backend with it.
public struct PasswordlessBackend: Sendable {
    public let apiURL: String
    let apiSecret: String
    let transport: HTTPTransport

    public init(apiURL: String, apiSecret: String, transport: HTTPTransport) {
        self.apiURL = apiURL.hasSuffix("/") ? String(apiURL.dropLast()) : apiURL
        self.apiSecret = apiSecret
        self.transport = transport
    }

    public struct RegisterTokenRequest: Encodable, Sendable {
        public var userId: String
        public var username: String
        public var displayName: String?
        public var aliases: [String]?
        public var discoverable: Bool?
        public var userVerification: String?
        /// ISO 8601 UTC; the server's default is two minutes from now.
        public var expiresAt: String?

        public init(userId: String, username: String, displayName: String? = nil, aliases: [String]? = nil,
                    discoverable: Bool? = nil, userVerification: String? = nil, expiresAt: String? = nil) {
            self.userId = userId
            self.username = username
            self.displayName = displayName
            self.aliases = aliases
            self.discoverable = discoverable
            self.userVerification = userVerification
            self.expiresAt = expiresAt
        }
    }

    /// What `/signin/verify` says about a verify token.
    public struct VerifiedSignIn: Decodable, Sendable, Equatable {
        public var success: Bool
        public var userId: String
        public var type: String?
        public var rpId: String?
        public var origin: String?
        public var credentialId: String?
        public var timestamp: String?

        enum CodingKeys: String, CodingKey { case success, userId, type, rpId, rpid, origin, credentialId, timestamp }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            success = try container.decode(Bool.self, forKey: .success)
            userId = try container.decode(String.self, forKey: .userId)
            type = try container.decodeIfPresent(String.self, forKey: .type)
            // Older hosted answers spell it `rpid` (passwordless-api.md §3).
            rpId = try container.decodeIfPresent(String.self, forKey: .rpId)
                ?? container.decodeIfPresent(String.self, forKey: .rpid)
            origin = try container.decodeIfPresent(String.self, forKey: .origin)
            credentialId = try container.decodeIfPresent(String.self, forKey: .credentialId)
            timestamp = try container.decodeIfPresent(String.self, forKey: .timestamp)
        }
    }

    struct TokenAnswer: Decodable { var token: String }
    struct VerifyRequest: Encodable { var token: String }

    public func registerToken(_ request: RegisterTokenRequest) async throws(PasswordlessError) -> String {
        let answer: TokenAnswer = try await PasswordlessHTTP.post(transport, url: apiURL + "/register/token", body: request,
                                                                  headers: [("ApiSecret", apiSecret)])
        return answer.token
    }

    public func verify(token: String) async throws(PasswordlessError) -> VerifiedSignIn {
        try await PasswordlessHTTP.post(transport, url: apiURL + "/signin/verify", body: VerifyRequest(token: token),
                                        headers: [("ApiSecret", apiSecret)])
    }
}
