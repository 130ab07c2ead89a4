import Foundation
import Testing
import TestSupport
@testable import Tokens

/// Numbers a token endpoint, a JWT or a stored entry hands the agent may be
/// anything JSON can write. Each used to trap (`now + expiresIn`,
/// `Int64(Double)`, `expiresAt - now`), which killed the agent on every
/// `token get` or `token list`; now each saturates, keeping its meaning.
@Suite(.ownThreads) struct OutsideNumbersTests {
    static let now: Int64 = 1_700_000_000

    /// A `token put` document with `expires_in` written as the raw JSON `lifetime`.
    static func document(expiresIn lifetime: String, access: String = "at-1") -> [UInt8] {
        Array(("{\"access_token\":\"\(access)\",\"token_type\":\"Bearer\",\"expires_in\":\(lifetime),"
            + "\"issuer\":\"https://id.example.org\",\"client_id\":\"cli\",\"token_endpoint\":\"https://id.example.org/token\"}").utf8)
    }

    static func expiry(_ lifetime: String) throws -> Int64? {
        try TokenDocument.tokenSet(from: document(expiresIn: lifetime), now: now).expiresAt
    }

    /// 2^53 - 1: the latest instant a token set holds (285 million years on).
    static let latest: Int64 = 9_007_199_254_740_991

    @Test func hugeLifetimesSaturateInsteadOfOverflowing() throws {
        for lifetime in ["9223372036854775807", "\"9223372036854775807\"", "9223372036854775808", "1e300", "1.7976931348623157e308",
                         "\"99999999999999999999999999999999\"", "\"9223372036854775806\"", "9007199254740991"] {
            #expect(try Self.expiry(lifetime) == Self.latest, "expires_in \(lifetime)")
        }
        // Up to the bound: exact.
        #expect(try Self.expiry("\(Self.latest - Self.now)") == Self.latest)
        #expect(try Self.expiry("\(Self.latest - Self.now - 1)") == Self.latest - 1)
        // Stored and shown as a number every JSON reader holds exactly.
        let set = try TokenDocument.tokenSet(from: Self.document(expiresIn: "\"9223372036854775807\""), now: Self.now)
        #expect(String(decoding: set.encoded(), as: UTF8.self).contains("\"expiresAt\":9007199254740991"))
        #expect(try TokenSet(decoding: set.encoded(), account: "a") == set)
        // Fractions round down: the token expires no later than it says.
        #expect(try Self.expiry("3600.9") == Self.now + 3600)
        #expect(try Self.expiry("\"3600\"") == Self.now + 3600)
    }

    @Test func negativeOrNonNumericLifetimesAreNamedErrors() {
        for lifetime in ["-1", "\"-5\"", "-1e300", "-9223372036854775808", "\"-99999999999999999999999\"", "-0.5"] {
            let error = #expect(throws: TokenError.self) { try Self.expiry(lifetime) }
            #expect(error?.description.contains("`expires_in` is negative") == true, "\(lifetime): \(String(describing: error))")
        }
        for lifetime in ["\"soon\"", "\"1e3\"", "\"\"", "\"+5\"", "\"3600.5\"", "true", "[1]"] {
            let error = #expect(throws: TokenError.self) { try Self.expiry(lifetime) }
            #expect(error?.description.contains("`expires_in`") == true, "\(lifetime): \(String(describing: error))")
        }
    }

    /// A compact JWS whose payload is `payload`, written as raw JSON.
    static func jwt(_ payload: String) -> String { unsignedJWT(payload) }

    @Test func jwtDatesBeyondInt64Saturate() throws {
        let far = try #require(JWTClaims(jwt: Self.jwt(#"{"exp":1e300,"iat":-1e300}"#)))
        #expect(far.expiresAt == Self.latest)
        #expect(far.issuedAt == -Self.latest)
        let edges = try #require(JWTClaims(jwt: Self.jwt(#"{"exp":-9223372036854775808,"iat":9223372036854775807}"#)))
        #expect(edges.expiresAt == -Self.latest)
        #expect(edges.issuedAt == Self.latest)
        let fractional = try #require(JWTClaims(jwt: Self.jwt(#"{"exp":1700003600.75,"iat":-0.25}"#)))
        #expect(fractional.expiresAt == 1_700_003_600)
        #expect(fractional.issuedAt == -1)
    }

    /// Without `expires_in` the access token's own `exp` is the expiry: one
    /// long past forces a refresh, one far in the future does not.
    @Test func aJWTExpiryBeyondInt64StillDecidesValidity() throws {
        func stored(exp: String) throws -> TokenSet {
            let access = Self.jwt("{\"exp\":\(exp)}")
            let json = "{\"access_token\":\"\(access)\",\"token_type\":\"Bearer\",\"issuer\":\"https://id.example.org\","
                + "\"client_id\":\"cli\",\"token_endpoint\":\"https://id.example.org/token\"}"
            return try TokenDocument.tokenSet(from: Array(json.utf8), now: Self.now)
        }
        let past = try stored(exp: "-1e300")
        #expect(past.expiresAt == -Self.latest)
        #expect(!past.isValid(for: 0, now: Self.now))
        let edge = try stored(exp: "-9223372036854775808")
        #expect(!edge.isValid(for: 60, now: Self.now))
        let future = try stored(exp: "1e300")
        #expect(future.expiresAt == Self.latest)
        #expect(future.isValid(for: 366 * 86_400, now: Self.now))
    }

    @Test func validityAtTheEndsOfInt64() {
        func set(_ expiresAt: Int64?) -> TokenSet {
            TokenSet(accessToken: "a", tokenType: "Bearer", expiresAt: expiresAt, issuer: "https://i.example",
                     clientId: "c", tokenEndpoint: "https://i.example/t", updatedAt: 0)
        }
        #expect(!set(.min).isValid(for: 0, now: Self.now))
        #expect(!set(.min).isValid(for: 0, now: .max))
        #expect(set(.max).isValid(for: Int.max, now: -1))
        #expect(set(.max).isValid(for: 60, now: .min))
        #expect(!set(-1).isValid(for: 0, now: .max))
        #expect(set(Self.now + 60).isValid(for: 60, now: Self.now))
        #expect(!set(Self.now + 59).isValid(for: 60, now: Self.now))
    }

    /// A stored entry is outside input too: a set whose expiry is -2^63,
    /// read back from its vault payload, is judged (expired) without a trap
    /// and brought within the bound, so it can be shown.
    @Test func aStoredExpiryOfMinus2To63IsJudgedWithoutATrap() throws {
        let payload = #"{"accessToken":"a","tokenType":"Bearer","expiresAt":-9223372036854775808,"issuer":"https://i.example","clientId":"c","tokenEndpoint":"https://i.example/t","updatedAt":9223372036854775807}"#
        let stored = try TokenSet(decoding: Array(payload.utf8), account: "edge")
        #expect(stored.expiresAt == -Self.latest)
        #expect(stored.updatedAt == Self.latest)
        #expect(!stored.isValid(for: 60, now: Self.now))
    }

    @Test func refreshedExpirySaturatesToo() {
        let response = TokenResponse(accessToken: "a", tokenType: "Bearer", expiresIn: .max)
        #expect(response.expiry(now: Self.now) == Self.latest)
        #expect(response.expiry(now: .max) == Self.latest)
        #expect(TokenResponse(accessToken: "a", tokenType: "Bearer", expiresIn: 10).expiry(now: .min) == -Self.latest)
    }

    /// A clock at the ends of Int64 (the fuzz target tries them) still
    /// makes a token set that survives the vault's encoding unchanged.
    @Test func extremeClocksMakeStableTokenSets() throws {
        for now in [Int64.min, -1, Int64.max] {
            let set = try TokenDocument.tokenSet(from: Self.document(expiresIn: "3600"), now: now)
            #expect(try TokenSet(decoding: set.encoded(), account: "a") == set, "now \(now)")
        }
    }
}
