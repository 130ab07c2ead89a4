import FoundationEssentials

/// The token sets the vault group stores: shaped like an OpenID provider's
/// answer — an RS256 JWT access token (about 700 bytes), an ID token of the
/// same kind, a 64-character refresh token — so that the vault's size per
/// account is that of a real account, not of a toy string.
enum SyntheticTokens {
    /// What `token.put` takes: the token endpoint's answer plus what a refresh needs.
    struct Document: Encodable {
        var access_token: String
        var token_type = "Bearer"
        var expires_in: Int
        var refresh_token: String?
        var id_token: String?
        var scope = "openid profile email offline_access"
        var issuer = "https://id.example.org"
        var client_id = "cli"
        var token_endpoint: String
    }

    struct PutParams: Encodable {
        var account: String
        var token: Document
    }

    struct GetParams: Encodable {
        var account: String
        var minValid: Int
    }

    /// Ten years: the access token stays valid, so `token.get` answers from the vault without a refresh.
    static let longLife = 10 * 365 * 86_400

    /// `account-00042`.
    static func account(_ index: Int) -> String {
        let digits = String(index)
        return "account-" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }

    /// A token set for account `index`, issued now, valid for `expiresIn` seconds.
    static func document(_ index: Int, expiresIn: Int, endpoint: String = "https://id.example.org/oauth2/token",
                         refreshToken: String? = nil) -> Document {
        let now = Int(Date.now.timeIntervalSince1970)
        let subject = "user-\(index)"
        let access = jwt(#"{"aud":"https://api.example.org","client_id":"cli","exp":\#(now + expiresIn),"iat":\#(now),"#
            + #""iss":"https://id.example.org","jti":"\#(base64URL(randomBytes(16)))","scope":"openid profile email offline_access","sub":"\#(subject)"}"#)
        let id = jwt(#"{"aud":"cli","email":"\#(subject)@example.org","exp":\#(now + 3600),"iat":\#(now),"#
            + #""iss":"https://id.example.org","name":"Bench User \#(index)","nonce":"\#(base64URL(randomBytes(16)))","sub":"\#(subject)"}"#)
        return Document(access_token: access, expires_in: expiresIn,
                        refresh_token: refreshToken ?? base64URL(randomBytes(48)), id_token: id, token_endpoint: endpoint)
    }

    /// header.payload.signature, the signature 256 random bytes (an RSA-2048 signature's size).
    private static func jwt(_ payload: String) -> String {
        base64URL(Array(#"{"alg":"RS256","kid":"bench-2026","typ":"JWT"}"#.utf8)) + "." + base64URL(Array(payload.utf8))
            + "." + base64URL(randomBytes(256))
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        String(Data(bytes).base64EncodedString().compactMap { character -> Character? in
            switch character {
            case "+": return "-"
            case "/": return "_"
            case "=": return nil
            default: return character
            }
        })
    }
}
