import DevServerBase
import PasswordlessDevServer
/// Who approves an authorization: a user who signed in with a passkey on
/// the passwordless side (a `verify_token`, redeemed by the /signin/verify
/// rules: MAC, expiry, single use), or — the DEVELOPMENT SHORTCUT — whoever
/// the `user` field names, with no sign-in at all.
extension OAuthServer {
    static let maxUserIdLength = 255

    struct SignInRefused: Error {
        let reason: String
    }

    /// The subject from the form: exactly one of `verify_token` and `user`.
    func signedInUser(_ fields: FormFields) async throws(SignInRefused) -> String {
        switch (fields["verify_token"], fields["user"]) {
        case (let token?, nil):
            let claims: VerifyTokenClaims
            do {
                claims = try api.open(token, as: .verify, VerifyTokenClaims.self)
                try await api.store.spend(tokenId: claims.tokenId, expiresAt: claims.expiresAt, now: now, what: "verify token")
            } catch {
                throw SignInRefused(reason: "The verify token was refused: \(error.title)")
            }
            return claims.userId
        case (nil, let user?):
            guard user.utf8.count <= Self.maxUserIdLength else {
                throw SignInRefused(reason: "user is longer than \(Self.maxUserIdLength) bytes.")
            }
            return user
        case (nil, nil):
            throw SignInRefused(reason: "Sign in with a passkey (verify_token) or name the user (user).")
        case (_?, _?):
            throw SignInRefused(reason: "Give verify_token or user, not both.")
        }
    }

    /// `name` and `email` from the user's plaintext aliases on the passwordless
    /// side: the first alias with an `@` is the email, the first without is the name.
    func profile(of sub: String) async -> (name: String?, email: String?) {
        let aliases = await api.store.aliases(ofUser: sub).compactMap(\.plaintext)
        return (aliases.first { !$0.contains("@") }, aliases.first { $0.contains("@") })
    }
}
