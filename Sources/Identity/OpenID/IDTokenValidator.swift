import JWTKit
import Tokens

/// ID-token validation, OpenID Connect Core §3.1.3.7 at login and §12.2
/// after a refresh, with jwt-kit for the signature.
///
/// The header's `alg` is checked against our allow-list before any key is
/// looked at: `none` and HS* never verify (HS256 "signed" with the
/// provider's public key is the classic confusion). The key is then picked
/// here, not by jwt-kit: its `JWTKeyCollection` falls back to its default
/// key for a `kid` it does not hold, and caches the algorithm the first
/// token names for a key without `alg` (oidc-provider-mock publishes RSA keys
/// without one). So the one key whose `kid`, `kty` and `alg` fit goes into a
/// collection of its own, with the header's `alg` filled in, and jwt-kit
/// checks the signature with it. An unknown `kid` fetches the key set again,
/// once (the provider may have rotated its keys).
public struct IDTokenValidator: Sendable {
    /// Asymmetric signatures only (OIDC Core §3.1.3.7 item 6 and RFC 8725 §3.1).
    public static let allowedAlgorithms: Set<String> = [
        "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA",
    ]
    /// Clock skew allowed on `exp`, `iat` and `nbf`.
    public static let leeway: Int64 = 60
    /// How old `iat` may be: an ID token is fresh from its login or refresh.
    public static let maximumAge: Int64 = 86_400

    private let provider: OpenIDProvider
    private let clientId: String
    private let now: @Sendable () -> Int64

    public init(provider: OpenIDProvider, clientId: String, now: @escaping @Sendable () -> Int64 = TokenSet.now) {
        self.provider = provider
        self.clientId = clientId
        self.now = now
    }

    /// At login: every check, and `nonce` must equal the one sent. nil: the
    /// flow sends no nonce (the device grant, RFC 8628), so there is none to compare.
    public func validate(_ idToken: String, nonce: String?) async throws(OpenIDError) -> IDTokenClaims {
        let payload = try await verified(idToken)
        let claims = try checked(payload)
        if let nonce {
            guard !nonce.isEmpty, payload.nonce == nonce else { throw .idToken(.nonce) }
        }
        return claims
    }

    /// After a refresh (OIDC Core §12.2): every check, and the same `iss`,
    /// `sub`, `aud` (and `auth_time` when both have it) as `previous`; a
    /// `nonce`, if present, need not match anything.
    public func validateRefreshed(_ idToken: String, previous: IDTokenClaims) async throws(OpenIDError) -> IDTokenClaims {
        let claims = try checked(try await verified(idToken))
        guard claims.issuer == previous.issuer else { throw .idToken(.issuer) }
        guard claims.subject == previous.subject else { throw .idToken(.subjectChanged) }
        guard Set(claims.audience) == Set(previous.audience) else { throw .idToken(.audience) }
        if let authTime = claims.authTime, let before = previous.authTime, authTime != before {
            throw .idToken(.authTimeChanged)
        }
        return claims
    }

    /// The payload of a token whose signature verifies with the provider's key.
    private func verified(_ idToken: String) async throws(OpenIDError) -> IDTokenPayload {
        let jws = try CompactJWS(idToken)
        let alg = jws.header.alg
        guard Self.allowedAlgorithms.contains(alg) else {
            throw .idToken(.algorithmNotAllowed(String((TokenError.sanitised(alg) ?? "").prefix(32))))
        }
        guard !jws.signature.isEmpty else { throw .idToken(.badSignature) }
        var keys = try await provider.keySet(refetch: false).candidates(kid: jws.header.kid, alg: alg)
        if keys.isEmpty { keys = try await provider.keySet(refetch: true).candidates(kid: jws.header.kid, alg: alg) }
        guard !keys.isEmpty else {
            throw .idToken(.unknownKey(jws.header.kid.map { String((TokenError.sanitised($0) ?? "").prefix(64)) }))
        }
        for key in keys where await Self.signatureVerifies(idToken, key: key, alg: alg) {
            return try IDTokenPayload.decode(json: jws.payload)
        }
        throw .idToken(.badSignature)
    }

    /// jwt-kit's verdict with exactly this key and algorithm. Public for
    /// BeyondIdentity's request JWTs, whose key is chosen the same way.
    public static func signatureVerifies(_ idToken: String, key: JSONWebKeySet.Key, alg: String) async -> Bool {
        var jwk = key.jwk
        jwk.algorithm = JWK.Algorithm(rawValue: alg)
        // The collection's only key is its default, whatever the header's kid.
        jwk.keyIdentifier = JWKIdentifier(string: "selected")
        let collection = JWTKeyCollection()
        do {
            try await collection.add(jwk: jwk)
            _ = try await collection.verify(idToken, as: SignatureOnly.self)
            return true
        } catch {
            return false
        }
    }

    /// §3.1.3.7 items 2-4 and 9-10, with `leeway` for clock skew and every
    /// sum saturating (the times come from outside).
    private func checked(_ payload: IDTokenPayload) throws(OpenIDError) -> IDTokenClaims {
        let claims = payload.claims
        let clock = now()
        guard claims.issuer == provider.issuer else { throw .idToken(.issuer) }
        guard claims.audience.contains(clientId) else { throw .idToken(.audience) }
        if claims.audience.count > 1, claims.authorizedParty == nil { throw .idToken(.authorizedParty) }
        if let party = claims.authorizedParty, party != clientId { throw .idToken(.authorizedParty) }
        guard OutsideSeconds.adding(Self.leeway, to: claims.expiresAt) > clock else { throw .idToken(.expired) }
        let latest = OutsideSeconds.adding(Self.leeway, to: clock)
        guard claims.issuedAt <= latest else { throw .idToken(.issuedInFuture) }
        if let notBefore = payload.notBefore, notBefore > latest { throw .idToken(.issuedInFuture) }
        guard OutsideSeconds.adding(Self.maximumAge + Self.leeway, to: claims.issuedAt) >= clock else {
            throw .idToken(.issuedTooLongAgo)
        }
        return claims
    }
}

/// What jwt-kit decodes after the signature verifies: nothing. The claims
/// are read and checked by `IDTokenPayload` and `checked`, with our clock and
/// saturating times.
private struct SignatureOnly: JWTPayload {
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
