import DevServerBase
import FoundationEssentials
import HTTPTypes
import Hummingbird
import WebAuthn

/// The endpoints' shared parts: state, keys, token codec, allow-list and
/// settings. Each endpoint is an extension in its own file.
package struct DevServerAPI: Sendable {
    package let store: DevServerStore
    package let keys: AppKeys
    let tokens: TokenCodec
    let allowList: AllowList
    let configuration: PasswordlessConfiguration

    package init(store: DevServerStore, keys: AppKeys, tokens: TokenCodec, allowList: AllowList, configuration: PasswordlessConfiguration) {
        self.store = store
        self.keys = keys
        self.tokens = tokens
        self.allowList = allowList
        self.configuration = configuration
    }

    package var now: Date { configuration.clock.now() }

    func expiry(after lifetime: Duration) -> Date {
        now.addingTimeInterval(lifetime.timeInterval)
    }

    /// Opens a token of `kind` and checks it has not expired.
    package func open<Claims: PasswordlessTokenClaims>(_ token: String?, as kind: TokenKind, _ type: Claims.Type) throws(APIProblem) -> Claims {
        guard let token, !token.isEmpty else { throw .missingToken(kind.described) }
        let claims = try tokens.open(token, as: kind, type)
        try claims.checkNotExpired(now: now)
        return claims
    }

    /// Opens a `session_` token of the given ceremony and spends it: whatever
    /// the outcome of the attempt that presents it, it is never accepted again.
    func spendSession<Session: PasswordlessTokenClaims>(_ token: String?, ceremony: SessionCeremony,
                                             _ type: Session.Type) async throws(APIProblem) -> Session {
        guard let token, !token.isEmpty else { throw .missingToken(TokenKind.session.described) }
        let probe = try tokens.open(token, as: .session, SessionCeremony.Probe.self)
        guard probe.ceremony == ceremony else {
            throw .invalidToken(ceremony == .registration
                ? "This session token is from /signin/begin; /register/complete needs the one /register/begin returned."
                : "This session token is from /register/begin; /signin/complete needs the one /signin/begin returned.")
        }
        let session = try open(token, as: .session, type)
        try await store.spend(tokenId: session.tokenId, expiresAt: session.expiresAt, now: now, what: "session token")
        return session
    }

    /// Issues a verify token for a completed ceremony.
    func issueVerifyToken(type: String, userId: String, rpId: String?, origin: String?, request: Request,
                          nickname: String?, credentialId: [UInt8]?, purpose: String?,
                          lifetime: Duration) -> String {
        let claims = VerifyTokenClaims(
            tokenId: TokenID.make(), expiresAt: expiry(after: lifetime), type: type, userId: userId,
            timestamp: now, rpId: rpId, origin: origin, device: request.device, country: request.country,
            nickname: nickname, credentialId: credentialId.map(Base64URLBytes.init), purpose: purpose)
        return tokens.seal(claims, as: .verify)
    }

    /// An RPID sent to a `/complete` must be the one the ceremony began with:
    /// the authenticator signed over that RP ID's hash.
    func checkSameRpId(_ rpId: String?, session sessionRpId: String) throws(APIProblem) {
        guard let rpId, !rpId.isEmpty else { return }
        _ = try allowList.checkRpId(rpId)
        guard rpId == sessionRpId else {
            throw .invalidArgument("RPID \"\(rpId)\" differs from the RPID \"\(sessionRpId)\" this ceremony began with.")
        }
    }
}

/// `{ "token": "…" }`
struct TokenEnvelope: Encodable {
    let token: String
}

/// `{ "data": options, "session": "session_…" }`
struct OptionsEnvelope<Options: Encodable>: Encodable {
    let data: Options
    let session: String
}

/// `{ "values": […] }`
struct ValuesEnvelope<Value: Encodable>: Encodable {
    let values: [Value]
}

extension Request {
    /// Stored with a credential and echoed in verify tokens, as the hosted API does.
    var device: String? { headers[.userAgent].map { String($0.prefix(256)) } }

    /// The hosted API reads Cloudflare's country header; a loopback server rarely sees one.
    var country: String? {
        guard let name = HTTPField.Name("CF-IPCountry") else { return nil }
        return headers[name].map { String($0.prefix(8)) }
    }
}
