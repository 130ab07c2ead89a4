import Foundation
import Testing
import TestSupport
@testable import Tokens

/// `token put`'s document and the token endpoint's answers: strict, with
/// errors that name the member.
@Suite(.ownThreads) struct TokenDocumentTests {
    static let now: Int64 = 1_700_000_000

    func document(_ members: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: members))
    }

    let complete: [String: Any] = [
        "access_token": "at-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-1",
        "id_token": "x.y.z", "scope": "openid email", "issuer": "https://id.example.org",
        "client_id": "cli", "token_endpoint": "https://id.example.org/token",
    ]

    @Test func aCompleteDocumentBecomesATokenSet() throws {
        let set = try TokenDocument.tokenSet(from: try document(complete), now: Self.now)
        #expect(set.accessToken == "at-1")
        #expect(set.refreshToken == "rt-1")
        #expect(set.expiresAt == Self.now + 3600)
        #expect(set.issuer == "https://id.example.org")
        #expect(set.tokenEndpoint == "https://id.example.org/token")
        #expect(set.isValid(for: 60, now: Self.now + 3540))
        #expect(!set.isValid(for: 60, now: Self.now + 3541))
        #expect(try TokenSet(decoding: set.encoded(), account: "a") == set)
    }

    @Test func missingOrWrongMembersAreNamed() throws {
        for (member, expected) in [("access_token", "`access_token`"), ("token_type", "`token_type`"),
                                   ("issuer", "`issuer`"), ("client_id", "`client_id`"),
                                   ("token_endpoint", "`token_endpoint`")] {
            var members = complete
            members[member] = nil
            let error = #expect(throws: TokenError.self) { try TokenDocument.tokenSet(from: try document(members), now: Self.now) }
            #expect(error?.description.contains(expected) == true, "\(member): \(String(describing: error))")
        }
        var plainHTTP = complete
        plainHTTP["token_endpoint"] = "http://id.example.org/token"
        let error = #expect(throws: TokenError.self) { try TokenDocument.tokenSet(from: try document(plainHTTP), now: Self.now) }
        #expect(error?.description.contains("https://") == true)
        var loopback = complete
        loopback["token_endpoint"] = "http://127.0.0.1:8080/token"
        #expect(try TokenDocument.tokenSet(from: try document(loopback), now: Self.now).tokenEndpoint == "http://127.0.0.1:8080/token")
        var badLifetime = complete
        badLifetime["expires_in"] = "soon"
        let lifetime = #expect(throws: TokenError.self) { try TokenDocument.tokenSet(from: try document(badLifetime), now: Self.now) }
        #expect(lifetime?.description.contains("`expires_in`") == true)
        #expect(throws: TokenError.self) { try TokenDocument.tokenSet(from: Array("[1]".utf8), now: Self.now) }
    }

    @Test func jwtClaimsAreDecodedForDisplay() throws {
        func part(_ object: [String: Any]) throws -> String {
            try JSONSerialization.data(withJSONObject: object).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let jwt = try part(["alg": "none"]) + "." + part(["sub": "alice", "iss": "https://id.example.org",
                                                           "aud": ["cli", "api"], "exp": 1_700_003_600, "iat": 1_700_000_000]) + ".sig"
        let claims = try #require(JWTClaims(jwt: jwt))
        #expect(claims.subject == "alice")
        #expect(claims.audience == ["cli", "api"])
        #expect(claims.expiresAt == 1_700_003_600)
        #expect(claims.issuedAt == 1_700_000_000)
        let single = try part(["alg": "none"]) + "." + part(["aud": "cli"]) + "."
        #expect(JWTClaims(jwt: single)?.audience == ["cli"])
        #expect(JWTClaims(jwt: "opaque-token") == nil)

        // Without expires_in, a JWT access token's exp is the expiry.
        var members = complete
        members["expires_in"] = nil
        members["access_token"] = jwt
        #expect(try TokenDocument.tokenSet(from: try document(members), now: Self.now).expiresAt == 1_700_003_600)
    }
}
