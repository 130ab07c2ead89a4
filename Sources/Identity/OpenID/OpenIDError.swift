import HTTPTransport

/// Why a login step failed, as something the user can act on. No message
/// carries a token, an authorization or device code, a PKCE verifier, a
/// `state` or a nonce; what a server wrote is shown as one short line without
/// control characters (`TokenError.sanitised`), and URLs without their query.
public enum OpenIDError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The issuer given is not a URL tokens may be sent to.
    case invalidIssuer(String, reason: String)
    /// The discovery document could not be used: which URL, and why.
    case discovery(url: String, reason: String)
    /// The discovery document names another issuer than the one asked for
    /// (OIDC Discovery §4.3: they must be equal, character for character).
    case discoveryIssuerMismatch(expected: String, got: String)
    /// The provider's key set (JWKS) could not be used.
    case jwks(url: String, reason: String)
    /// The redirect's `state` is missing or not this login's: nothing else of it is trusted.
    case stateMismatch
    /// The redirect's RFC 9207 `iss` names another issuer (a mix-up attack, or the wrong login).
    case issuerMismatch(expected: String, got: String)
    /// The provider says it sends `iss` (RFC 9207) but the redirect has none.
    case missingIssuer
    /// The provider refused the authorization (`error=access_denied`, …).
    case authorizationRefused(code: String, description: String?)
    /// The redirect carries neither a code nor an error.
    case missingCode
    /// The pasted or received redirect is not a URL with a query we can read.
    case malformedRedirect(String)
    /// The ID token failed OpenID Connect Core §3.1.3.7 (or §12.2 after a refresh).
    case idToken(IDTokenProblem)
    /// The token endpoint refused the grant (`invalid_grant`): the code was used, expired, or the verifier does not match.
    case invalidGrant(description: String?)
    /// The token endpoint answered with another error.
    case tokenEndpoint(status: Int, errorCode: String?, description: String?)
    /// The revocation endpoint (RFC 7009) answered with an error.
    case revocationFailed(status: Int, errorCode: String?, description: String?)
    /// The device authorization endpoint (RFC 8628 §3.1) answered with an error.
    case deviceAuthorizationFailed(status: Int, errorCode: String?, description: String?)
    /// A server could not be reached (the URL is in the transport error).
    case network(HTTPTransportError)
    /// A server's answer is not what its specification says: which URL, and why.
    case malformedResponse(url: String, reason: String)
    /// The provider offers no device authorization endpoint (RFC 8628).
    case noDeviceEndpoint
    /// The user code expired before the user approved it (`expired_token`, or the expiry passed).
    case deviceCodeExpired
    /// The user declined the device login (`access_denied`).
    case deviceAccessDenied
    /// The provider offers no revocation endpoint (RFC 7009): the tokens stay valid until they expire.
    case noRevocationEndpoint
    /// The loopback redirect listener could not start or stopped.
    case listener(String)
    /// The login was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case .invalidIssuer(let issuer, let reason):
            return "the issuer \"\(issuer)\" cannot be used: \(reason); give the provider's issuer URL, e.g. https://id.example.com/oauth2/default"
        case .discovery(let url, let reason):
            return "OpenID discovery at \(url) failed: \(reason); check the issuer URL (the provider's documentation names it)"
        case .discoveryIssuerMismatch(let expected, let got):
            return "the provider's discovery document names the issuer \"\(got)\", not \"\(expected)\": "
                + "issuers must match exactly (a trailing slash counts); log in with --issuer \(got) if that is the same provider"
        case .jwks(let url, let reason):
            return "the provider's signing keys at \(url) cannot be used: \(reason)"
        case .stateMismatch:
            return "the redirect's state is missing or belongs to another login: it was not answered "
                + "(someone may be trying to slip you their login); start the login again"
        case .issuerMismatch(let expected, let got):
            return "the redirect comes from the issuer \"\(got)\", not \"\(expected)\" (RFC 9207): "
                + "it may belong to another provider's login (a mix-up attack); start the login again"
        case .missingIssuer:
            return "the redirect carries no `iss` although the provider says it always sends one (RFC 9207): "
                + "it may not come from this provider; start the login again"
        case .authorizationRefused(let code, let text):
            return "the provider refused the login (\(code)\(text.map { ": \($0)" } ?? ""))"
                + (code == "access_denied" ? ": it was declined or the account may not use this client" : "")
        case .missingCode:
            return "the redirect carries no authorization code: paste the whole address of the page the provider sent you to"
        case .malformedRedirect(let why):
            return "the redirect cannot be read: \(why); paste the whole address of the page the provider sent you to"
        case .idToken(let problem):
            return "the provider's ID token was refused: \(problem)"
        case .invalidGrant(let text):
            return "the token endpoint refused the grant (invalid_grant\(text.map { ": \($0)" } ?? "")): start the login again"
        case .tokenEndpoint(let status, let code, let text):
            return Self.serverLine("the token endpoint", status, code, text)
        case .revocationFailed(let status, let code, let text):
            var line = Self.serverLine("the revocation endpoint", status, code, text)
            if code == "unsupported_token_type" { line += " (it cannot revoke this kind of token)" }
            return line
        case .deviceAuthorizationFailed(let status, let code, let text):
            var line = Self.serverLine("the device authorization endpoint", status, code, text)
            if code == "unauthorized_client" || code == "invalid_client" { line += ": the client may not use the device flow; try --flow browser" }
            return line
        case .network(let error):
            return error.description
        case .malformedResponse(let url, let reason):
            return "\(url) sent an unusable answer: \(reason)"
        case .noDeviceEndpoint:
            return "the provider offers no device login (no device_authorization_endpoint): use --flow browser or --flow paste"
        case .deviceCodeExpired:
            return "the user code expired before the login was approved: start the login again"
        case .deviceAccessDenied:
            return "the device login was declined (access_denied)"
        case .noRevocationEndpoint:
            return "the provider offers no revocation endpoint (RFC 7009): the tokens were not revoked and stay valid until they expire"
        case .listener(let why):
            return "the loopback redirect listener failed: \(why)"
        case .cancelled:
            return "the login was cancelled"
        }
    }

    /// The OAuth error code when the server sent one (invalid_grant, access_denied, …).
    public var errorCode: String? {
        switch self {
        case .authorizationRefused(let code, _): return code
        case .invalidGrant: return "invalid_grant"
        case .tokenEndpoint(_, let code, _), .revocationFailed(_, let code, _), .deviceAuthorizationFailed(_, let code, _): return code
        case .deviceCodeExpired: return "expired_token"
        case .deviceAccessDenied: return "access_denied"
        default: return nil
        }
    }

    private static func serverLine(_ what: String, _ status: Int, _ code: String?, _ text: String?) -> String {
        var line = "\(what) answered HTTP \(status)"
        if let code { line += " with \(code)" }
        if let text { line += ": \(text)" }
        return line
    }
}

/// What is wrong with an ID token. None of these carries the token, its
/// nonce or its signature.
public enum IDTokenProblem: Sendable, Equatable, CustomStringConvertible {
    /// Not a compact JWS with the claims OpenID Connect requires: why.
    case malformed(String)
    /// The header's `alg` is not one we accept (never `none`, never HS* — a
    /// public key is no shared secret).
    case algorithmNotAllowed(String)
    /// No key of the provider's key set has this `kid`, even after fetching the set again.
    case unknownKey(String?)
    /// The signature does not verify with the provider's key.
    case badSignature
    /// `iss` is not the provider's issuer (or, after a refresh, changed).
    case issuer
    /// `aud` does not contain this client (or, after a refresh, changed).
    case audience
    /// Several audiences without `azp`, or an `azp` that is not this client.
    case authorizedParty
    /// `exp` has passed (60 s of clock skew allowed).
    case expired
    /// `iat` (or `nbf`) lies in the future beyond 60 s of clock skew.
    case issuedInFuture
    /// `iat` is more than a day old: not the token of a login just made.
    case issuedTooLongAgo
    /// `nonce` is missing or not the one this login sent (a replayed token).
    case nonce
    /// After a refresh, `sub` names another user.
    case subjectChanged
    /// After a refresh, `auth_time` changed (it must stay the original sign-in's).
    case authTimeChanged

    public var description: String {
        switch self {
        case .malformed(let why): return "it is not a usable ID token (\(why))"
        case .algorithmNotAllowed(let alg):
            return "it is signed with \"\(alg)\", which is not accepted (RS256/384/512, PS256/384/512, ES256/384/512 and EdDSA are)"
        case .unknownKey(let kid):
            return "it names the key \(kid.map { "\"\($0)\"" } ?? "(no kid)"), which the provider's key set does not hold even after fetching it again"
        case .badSignature: return "its signature does not verify with the provider's key"
        case .issuer: return "its issuer (iss) is not the provider's"
        case .audience: return "it is not meant for this client (aud)"
        case .authorizedParty: return "it names several audiences without this client as the authorized party (azp)"
        case .expired: return "it has expired (check this machine's clock)"
        case .issuedInFuture: return "it is issued in the future (check this machine's clock)"
        case .issuedTooLongAgo: return "it was issued more than a day ago (check this machine's clock)"
        case .nonce: return "its nonce is not this login's (a replayed token?); start the login again"
        case .subjectChanged: return "after the refresh it names another user (sub); log in again"
        case .authTimeChanged: return "after the refresh its auth_time changed; log in again"
        }
    }
}
