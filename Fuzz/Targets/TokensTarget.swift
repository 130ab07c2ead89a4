import Base64
import FoundationEssentials
import Tokens
import WebAuthn

extension FuzzTarget {
    /// What `token put` and token endpoints hand the agent, and what the vault
    /// gives back: a token document (the token response parser, shared with
    /// refresh responses), a stored token set, and the JWTs inside them —
    /// with the times they carry checked against the extreme clocks.
    static let tokens = FuzzTarget(
        name: "tokens",
        summary: "JSON as a token put document (TokenDocument), a stored TokenSet, and text as a JWT (JWTClaims); expiry checks at extreme clocks",
        maximumLength: 8192,
        seeds: {
            let claims = #"{"sub":"alice","iss":"https://id.example.com","aud":["cli","api"],"exp":1900000000,"iat":1700000000}"#
            let jwt = "eyJhbGciOiJSUzI1NiJ9." + Base64URL.encode(Array(claims.utf8)) + ".c2ln"
            let document = """
                {"access_token":"\(jwt)","token_type":"Bearer","expires_in":3600,"refresh_token":"r-1",
                 "id_token":"\(jwt)","scope":"openid offline_access","issuer":"https://id.example.com",
                 "client_id":"cli","token_endpoint":"https://id.example.com/oauth2/token"}
                """
            let stored = try TokenDocument.tokenSet(from: Array(document.utf8), now: 1_700_000_000).encoded()
            return [
                Seed("token-put-document", text: document),
                Seed("stored-token-set", stored),
                Seed("jwt", text: jwt),
                Seed("loopback-endpoint", text: #"{"access_token":"a","token_type":"Bearer","issuer":"http://127.0.0.1:8080","client_id":"c","token_endpoint":"http://[::1]:8080/token"}"#),
                Seed("huge-numbers", text: #"{"access_token":"a","token_type":"Bearer","expires_in":"9223372036854775807","issuer":"https://i","client_id":"c","token_endpoint":"https://t","exp":1e300}"#),
            ]
        },
        run: { bytes in
            let clocks: [Int64] = [0, 1_700_000_000, .max, .min]
            for now in clocks {
                if let set = try? TokenDocument.tokenSet(from: bytes, now: now) {
                    exercise(set, clocks: clocks)
                    let stored = set.encoded()
                    let reread = try? TokenSet(decoding: stored, account: "fuzz")
                    try expect(reread == set, "a token set made at clock \(now) does not survive the vault's encoding: "
                                              + "\(String(decoding: stored, as: UTF8.self)) reads back as \(reread.map { "\($0)" } ?? "an error")")
                }
            }
            if let set = try? TokenSet(decoding: bytes, account: "fuzz") { exercise(set, clocks: clocks) }
            _ = JWTClaims(jwt: String(decoding: bytes, as: UTF8.self))
        })

    private static func exercise(_ set: TokenSet, clocks: [Int64]) {
        for now in clocks {
            for seconds in [0, 60, Int.max, Int.min] { _ = set.isValid(for: seconds, now: now) }
        }
        _ = set.claims
    }
}
