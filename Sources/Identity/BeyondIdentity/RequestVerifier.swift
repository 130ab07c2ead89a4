import FoundationEssentials
import HTTPTransport
import Locking
import OpenID
import Tokens
import URLPolicy

/// Verifies the `request` JWT of an authenticate URL — which Beyond
/// Identity's SDK does not do; whoever can send the browser to the invoke URL
/// could otherwise make the key sign a challenge of their choosing for a
/// redirect of their choosing.
///
/// Order matters: the header's `alg` is checked before any key is looked at,
/// and the `jku` before anything is fetched from it: it must lie under a
/// trusted application (`InvokeTrust`: scheme, host, port and path prefix,
/// parsed — never prefix-matched as text — so `trusted.example.evil`,
/// `trusted.example@evil` and another tenant's path on the same host are
/// refused). The key is chosen as the ID-token validator chooses it (`kid`,
/// `kty`, `alg`) and jwt-kit checks the signature with it alone. Only then is
/// the payload read: `exp`/`nbf` with 60 s of clock skew and saturating sums,
/// `iss` equal to the `jku` without `/.well-known/jwks.json`, `verb`
/// "authenticate", every field the proof uses — and then everything the
/// request names against its application: the RP ID the key would sign for,
/// the proof target and the redirect URI.
public struct RequestVerifier: Sendable {
    /// What Beyond Identity signs with (RS256) and the other asymmetric
    /// algorithm our devserver could; `none` and HS* never verify.
    public static let allowedAlgorithms: Set<String> = ["RS256", "ES256"]
    /// Clock skew allowed on `exp`, `nbf` and `iat`.
    public static let leeway: Int64 = 60
    /// Where a request's `iss` is relative to its `jku`.
    public static let keySetSuffix = "/.well-known/jwks.json"

    private let trust: InvokeTrust
    private let transport: HTTPTransport
    private let now: @Sendable () -> Int64
    private let keySets: KeySetCache

    public init(trust: InvokeTrust, transport: HTTPTransport, now: @escaping @Sendable () -> Int64 = TokenSet.now) {
        self.trust = trust
        self.transport = transport
        self.now = now
        keySets = KeySetCache(now: now)
    }

    /// A request that verified, with the trusted application it belongs to.
    public struct Verified: Sendable {
        public var request: AuthenticateRequest
        public var application: TrustedApplication
    }

    public func verify(_ requestJWT: String) async throws(InvokeError) -> Verified {
        guard requestJWT.utf8.count <= InvokeURL.limit else {
            throw .malformedRequest("it is longer than \(InvokeURL.limit) bytes")
        }
        let jws = try Self.parse(requestJWT)
        let alg = jws.header.alg
        guard Self.allowedAlgorithms.contains(alg) else { throw .algorithmNotAllowed }
        guard !jws.signature.isEmpty else { throw .badSignature }
        guard let jku = jws.header.jku else { throw .malformedRequest("its header names no key set (jku)") }
        let application = try trust.application(forKeySet: jku)
        guard let kid = jws.header.kid, !kid.isEmpty else { throw .malformedRequest("its header names no key (kid)") }

        var keys = try await keySet(jku, refetch: false).candidates(kid: kid, alg: alg)
        if keys.isEmpty { keys = try await keySet(jku, refetch: true).candidates(kid: kid, alg: alg) }
        guard !keys.isEmpty else { throw .unknownKey }
        var verified = false
        for key in keys where await IDTokenValidator.signatureVerifies(requestJWT, key: key, alg: alg) {
            verified = true
            break
        }
        guard verified else { throw .badSignature }

        let claims = try RequestClaims.decode(jws.payload)
        try checkTimes(claims)
        guard jku.hasSuffix(Self.keySetSuffix), !claims.iss.isEmpty,
              claims.iss == String(jku.dropLast(Self.keySetSuffix.count)) else { throw .wrongIssuer }
        guard claims.verb == "authenticate" else { throw .wrongVerb }
        let request = try claims.request()
        try trust.check(request, issuer: claims.iss, application: application)
        return Verified(request: request, application: application)
    }

    /// `exp` (+ leeway) still ahead, `nbf` and `iat` not beyond now + leeway;
    /// every sum saturating, every number converted exactly.
    private func checkTimes(_ claims: RequestClaims) throws(InvokeError) {
        let clock = now()
        guard let expiresAt = OutsideSeconds.whole(claims.exp) else { throw .malformedRequest("its exp is not a number") }
        guard OutsideSeconds.adding(Self.leeway, to: expiresAt) > clock else { throw .requestExpired }
        let latest = OutsideSeconds.adding(Self.leeway, to: clock)
        for time in [claims.nbf, claims.iat].compactMap({ $0 }) {
            guard let seconds = OutsideSeconds.whole(time) else { throw .malformedRequest("its nbf or iat is not a number") }
            guard seconds <= latest else { throw .requestNotYetValid }
        }
    }

    private static func parse(_ token: String) throws(InvokeError) -> CompactJWS {
        do {
            return try CompactJWS(token)
        } catch {
            if case .idToken(.malformed(let why)) = error { throw .malformedRequest(why) }
            throw .malformedRequest("it is not a compact JWS")
        }
    }

    private func keySet(_ jku: String, refetch: Bool) async throws(InvokeError) -> JSONWebKeySet {
        if !refetch, let cached = keySets.get(jku) { return cached }
        let response: HTTPTransport.Response
        do {
            response = try await transport.send("GET", jku, headers: [("Accept", "application/json")])
        } catch {
            throw .network(error)
        }
        guard response.status == 200 else {
            throw .server(status: response.status, code: nil, description: "its key set \(Endpoint.shown(jku)) could not be fetched")
        }
        guard let set = JSONWebKeySet(response.body) else {
            throw .malformedRequest("its key set at \(Endpoint.shown(jku)) is not a JSON Web Key Set")
        }
        keySets.put(jku, set)
        return set
    }
}

/// Key sets by `jku`, each kept ten minutes (a key the provider withdrew
/// stops verifying soon); at most 32 (only trusted hosts' URLs get here).
final class KeySetCache: Sendable {
    static let lifetime: Int64 = 600
    static let capacity = 32

    private let entries = Locked<[String: (set: JSONWebKeySet, fetchedAt: Int64)]>([:])
    private let now: @Sendable () -> Int64

    init(now: @escaping @Sendable () -> Int64) { self.now = now }

    func get(_ jku: String) -> JSONWebKeySet? {
        let clock = now()
        return entries.withLock { entries in
            guard let entry = entries[jku] else { return nil }
            let age = clock.subtractingReportingOverflow(entry.fetchedAt)
            guard !age.overflow, (0..<Self.lifetime).contains(age.partialValue) else {
                entries[jku] = nil
                return nil
            }
            return entry.set
        }
    }

    func put(_ jku: String, _ set: JSONWebKeySet) {
        let clock = now()
        entries.withLock { entries in
            if entries.count >= Self.capacity, entries[jku] == nil { entries.removeAll() }
            entries[jku] = (set, clock)
        }
    }
}

/// The parsers of `verify` without the network or the signature, for the
/// fuzz target only: what they accept is NOT verified.
@_spi(Fuzzing) public enum RequestParsing {
    /// The request a payload would make, had its signature verified.
    public static func request(payload: [UInt8]) throws(InvokeError) -> AuthenticateRequest {
        try RequestClaims.decode(payload).request()
    }

    /// The header a request JWT would be verified with: `alg`, `kid`, `jku`.
    public static func header(_ token: String) -> (alg: String, kid: String?, jku: String?, payload: [UInt8])? {
        guard let jws = try? CompactJWS(token) else { return nil }
        return (jws.header.alg, jws.header.kid, jws.header.jku, jws.payload)
    }

    /// Whether `jku` may be fetched when `trustedHosts` (whole-host entries) are trusted.
    public static func isTrusted(_ jku: String, trustedHosts: [String]) -> Bool {
        let trust = InvokeTrust(applications: trustedHosts.compactMap { try? TrustedApplication.wholeHost($0) })
        return (try? trust.application(forKeySet: jku)) != nil
    }

    /// Whether `url` is under the application at `issuer` (a key set it may
    /// fetch), and the application a binding link's realm belongs to.
    public static func underApplication(_ url: String, issuer: String) -> (keySet: Bool, bindingLink: Bool) {
        guard let application = try? TrustedApplication(name: "fuzz", issuer: issuer) else { return (false, false) }
        let trust = InvokeTrust(applications: [application])
        return ((try? trust.application(forKeySet: url)) != nil, (try? trust.application(forBindingLink: url)) != nil)
    }

    /// Whether a prove answer's redirect would be accepted.
    public static func acceptsRedirect(_ redirect: String, to redirectURI: String, state: String) -> Bool {
        (try? BIClient.checkRedirect(redirect, to: redirectURI, state: state)) != nil
    }
}
