import FoundationEssentials

/// What a user approved for a client: who, which scopes, when they signed in.
package struct Authorization: Sendable {
    var clientId: String
    var sub: String
    var scopes: [String]
    var authTime: Date
    /// The authorization request's nonce; only the code flow has one.
    var nonce: String?

    package init(clientId: String, sub: String, scopes: [String], authTime: Date, nonce: String?) {
        self.clientId = clientId
        self.sub = sub
        self.scopes = scopes
        self.authTime = authTime
        self.nonce = nonce
    }
}

/// An authorization code: single-use, 60 s, bound to the client, the redirect
/// URI, the PKCE challenge, the nonce and the scopes.
package struct CodeRecord: Sendable {
    package static let lifetime: TimeInterval = 60

    var authorization: Authorization
    var redirectURI: String
    var codeChallenge: String
    var expiresAt: Date
    /// An IDX interaction code (grant_type=interaction_code), not an authorization code.
    var interactionCode = false
    var spent = false
    /// What redeeming it issued, revoked if the code is presented again (RFC 6749 §4.1.2).
    var issuedFamily: String?
    var issuedAccessTokens: [String: Date] = [:]
    var presentedAgain = false

    package init(authorization: Authorization, redirectURI: String, codeChallenge: String, expiresAt: Date, interactionCode: Bool = false) {
        self.authorization = authorization
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.expiresAt = expiresAt
        self.interactionCode = interactionCode
    }
}

/// A chain of rotating refresh tokens from one authorization. Only the
/// current token is good; presenting an earlier one revokes the family.
/// A revoked family is deleted, tokens and all: its refresh tokens are then
/// unknown, which is refused the same way.
struct RefreshFamily: Sendable {
    var authorization: Authorization
    var currentTokenHash: String
    /// Every refresh token hash of the family, current and spent, so a
    /// revocation can forget them all.
    var tokenHashes: [String]
    /// Live access tokens issued in this family, by `jti`, with their expiry.
    var accessTokens: [String: Date] = [:]
}

/// A device authorization (RFC 8628).
struct DeviceRecord: Sendable {
    enum Status: Sendable {
        case pending
        case approved(sub: String, authTime: Date)
        case denied
        case redeemed
    }

    var clientId: String
    var scopes: [String]
    var userCode: String
    var expiresAt: Date
    /// Seconds the client must wait between polls; grows by 5 at each `slow_down`.
    var interval: Int
    var lastPoll: Date?
    var status: Status = .pending
}
