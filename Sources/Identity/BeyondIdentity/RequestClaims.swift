import Base64
import FoundationEssentials
import Tokens
import URLPolicy
import WebAuthnClient
import WebAuthnJSON

/// The payload of a Beyond Identity request JWT (okta-bi.md §1.2 and the
/// team contract), decoded only after its signature verified, then checked
/// field by field: the ids that go into URL paths are single safe segments,
/// the URLs follow the `Endpoint` rule, the nonce and credential ids are
/// base64url of sane lengths, the shown text has no control characters.
struct RequestClaims: Decodable, Sendable {
    var iss: String
    var exp: Double
    var nbf: Double?
    var iat: Double?
    var jti: String
    var verb: String
    var app: Application
    var authn: Authentication
    var origin: Origin?

    struct Application: Decodable, Sendable {
        var id: String
        var display_name: String?
    }

    struct Authentication: Decodable, Sendable {
        var base_url: String
        var tid: String
        var rid: String
        var aid: String?
        var action: Action
        var redirect_uri: String
        var state: String
    }

    struct Action: Decodable, Sendable {
        var prove: Prove
    }

    struct Prove: Decodable, Sendable {
        var transaction_id: String
        var nonce: String
        var rp_id: String
        var origin: String
        var allow_credentials: [String]?
    }

    struct Origin: Decodable, Sendable {
        var ip: String?
        var ua: String?
        var geo: String?
        var ref: String?
    }

    /// Credential ids a realm may list; more is not a real realm.
    static let credentialLimit = 256

    static func decode(_ payload: [UInt8]) throws(InvokeError) -> RequestClaims {
        do {
            return try JSONDecoder().decode(RequestClaims.self, from: Data(payload))
        } catch {
            throw .malformedRequest("its claims are not those of an authentication request (iss, exp, jti, verb, app, authn with its prove action)")
        }
    }

    /// The request as the agent uses it, once each field passed its check.
    func request() throws(InvokeError) -> AuthenticateRequest {
        let prove = authn.action.prove
        for (name, value) in [("authn.tid", authn.tid), ("authn.rid", authn.rid), ("the transaction id", prove.transaction_id)]
            where !PathSegment.isSafe(value) {
            throw .malformedRequest("\(name) is not a plain identifier")
        }
        guard !jti.isEmpty, jti.utf8.count <= 256 else { throw .malformedRequest("its jti is empty or too long") }
        guard !app.id.isEmpty, app.id.utf8.count <= 256 else { throw .malformedRequest("its application id is empty or too long") }
        if let problem = Endpoint.problem(authn.base_url) {
            throw .malformedRequest("its base_url \(Endpoint.shown(authn.base_url)) cannot be used: \(problem)")
        }
        if let problem = Endpoint.problem(authn.redirect_uri) {
            throw .malformedRequest("its redirect_uri \(Endpoint.shown(authn.redirect_uri)) cannot be used: \(problem)")
        }
        guard !authn.state.isEmpty, authn.state.utf8.count <= 1024 else { throw .malformedRequest("its state is empty or too long") }
        guard let nonce = Base64URL.decode(prove.nonce, padding: .tolerated), (16...1024).contains(nonce.count) else {
            throw .malformedRequest("its nonce is not base64url of 16 to 1024 bytes")
        }
        try Self.checkWebAuthnOrigin(prove.origin, rpId: prove.rp_id)
        let credentials = prove.allow_credentials ?? []
        guard credentials.count <= Self.credentialLimit,
              credentials.allSatisfy({ Base64URL.decode($0, padding: .tolerated).map { (1...1023).contains($0.count) } ?? false }) else {
            throw .malformedRequest("its allow_credentials are not up to \(Self.credentialLimit) base64url credential ids")
        }
        return AuthenticateRequest(
            applicationName: TokenError.sanitised(app.display_name),
            applicationId: app.id,
            requestOrigin: RequestOrigin(ip: Self.shown(origin?.ip), userAgent: Self.shown(origin?.ua),
                                         geolocation: Self.shown(origin?.geo), referer: Self.shown(origin?.ref)),
            baseURL: authn.base_url, tenantId: authn.tid, realmId: authn.rid, transactionId: prove.transaction_id,
            jti: jti, challenge: prove.nonce, rpId: prove.rp_id, origin: prove.origin, allowCredentials: credentials,
            redirectURI: authn.redirect_uri, state: authn.state,
            expiresAt: OutsideSeconds.instant(OutsideSeconds.whole(exp) ?? 0))
    }

    /// The WebAuthn origin and RP ID by the one rule the ceremony itself
    /// applies (WebAuthnClient's `WebAuthnOrigin`): `https://host[:port]`
    /// (http only on this machine) with nothing after it, and the RP ID its
    /// host or a parent domain of it (none for an IP address).
    static func checkWebAuthnOrigin(_ origin: String, rpId: String) throws(InvokeError) {
        let parsed: WebAuthnOrigin
        do { parsed = try WebAuthnOrigin(origin) } catch {
            throw .malformedRequest("its WebAuthn origin is not an https origin")
        }
        guard rpId.utf8.count <= 253, (try? parsed.relyingPartyId(rpId)) != nil, !rpId.isEmpty else {
            throw .malformedRequest("its RP ID is not the origin's host or a parent domain of it")
        }
    }

    private static func shown(_ text: String?) -> String { TokenError.sanitised(text) ?? "" }
}

/// An id that goes into a URL path as one segment: unreserved characters
/// only (RFC 3986 §2.3), not `.` or `..`, at most 256 bytes — so outside
/// input cannot walk the path or add a query.
enum PathSegment {
    static func isSafe(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 256, text != ".", text != ".." else { return false }
        return text.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
        }
    }
}
