import CryptoExtras
import Base64
import BeyondIdentity
import Crypto
import FoundationEssentials
import Harness
import HTTPTransport
import JWTKit
import OpenID
import Locking

/// A small Beyond-Identity-like identity provider on a real loopback HTTP
/// server: the application's JWKS (an RS256 key `rs-1` and an ES256 key
/// `es-1`; `es-2` only when a test publishes it), and the prove, binding-link
/// and binding endpoints answering what the test scripts. It signs request
/// JWTs with jwt-kit, with the header and claims of the team contract.
final class TestIdentityProvider: Sendable {
    struct State {
        var published: Set<String> = ["rs-1", "es-1"]
        /// Answers by "METHOD path" (path without query); others: 404.
        var answers: [String: LoopbackHTTPServer.Answer] = [:]
        var requests: [LoopbackHTTPServer.Request] = []
    }

    let state = Locked(State())
    private let server: LoopbackHTTPServer
    let signers = JWTKeyCollection()
    let rsaKey: JWTKit.Insecure.RSA.PrivateKey
    let ecKey = ES256PrivateKey()
    let ecKey2 = ES256PrivateKey()
    let transport = HTTPTransport()

    static let applicationPath = "/bi/v1/tenants/t1/realms/r1/applications/a1"
    var port: UInt16 { server.port }
    var host: String { "127.0.0.1:\(server.port)" }
    var baseURL: String { server.url("/bi") }
    var application: String { server.url(Self.applicationPath) }
    var jku: String { application + "/.well-known/jwks.json" }
    var redirectURI: String { server.url("/oauth2/v1/authorize/callback") }

    init() async throws {
        rsaKey = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        let box = Locked(WeakIdentityProvider())
        server = try LoopbackHTTPServer { request in
            box.withLock { $0.provider }?.answer(request) ?? .json("{}", status: "503 Service Unavailable")
        }
        box.withLock { $0.provider = self }
        await signers.add(rsa: rsaKey, digestAlgorithm: .sha256, kid: "rs-1")
        await signers.add(ecdsa: ecKey, kid: "es-1")
        await signers.add(ecdsa: ecKey2, kid: "es-2")
    }

    deinit { server.stop() }

    func stop() { server.stop() }

    /// A verifier that trusts `hosts` as whole hosts, or by default this
    /// server's application with its RP ID (as config.toml would name it).
    func verifier(trusting hosts: [String]? = nil, now: @escaping @Sendable () -> Int64 = Clock.real) throws -> RequestVerifier {
        guard let hosts else { return RequestVerifier(trust: try trust(), transport: transport, now: now) }
        return RequestVerifier(trust: InvokeTrust(applications: hosts.compactMap { try? TrustedApplication.wholeHost($0) }),
                               transport: transport, now: now)
    }

    /// This server's application, trusted for `rpIds` (default: its own RP ID).
    func trust(rpIds: [String] = ["bi.passkey.test"], hosts: [String] = []) throws -> InvokeTrust {
        InvokeTrust(applications: [try TrustedApplication(name: "dev", issuer: application, relyingParties: rpIds, hosts: hosts)])
    }

    func script(_ method: String, _ path: String, _ answer: LoopbackHTTPServer.Answer) {
        state.withLock { $0.answers["\(method) \(path)"] = answer }
    }

    func requests(to path: String) -> [LoopbackHTTPServer.Request] {
        state.withLock { $0.requests.filter { $0.path == path } }
    }

    var allRequests: [LoopbackHTTPServer.Request] { state.withLock { $0.requests } }

    /// A request JWT: `claims` signed by `kid`, its header naming `jku` (default: ours).
    func requestJWT(_ claims: RequestJWTClaims, kid: String = "rs-1", jku: String? = nil) async throws -> String {
        var header = JWTHeader()
        header.typ = "JWT"
        header.jku = jku ?? self.jku
        return try await signers.sign(claims, kid: JWKIdentifier(string: kid), header: header)
    }

    /// Claims that pass every check at `now`.
    func claims(now: Int64 = Clock.real()) -> RequestJWTClaims {
        RequestJWTClaims(
            iss: application, sub: "tx-1", aud: [], iat: Double(now), nbf: Double(now - 60), exp: Double(now + 300),
            jti: "jti-1", cid: "cid-1", verb: "authenticate",
            app: .init(id: "a1", display_name: "Beyond Identity Dev"),
            authn: .init(base_url: baseURL, tid: "t1", rid: "r1", aid: "a1",
                         action: .init(prove: .init(transaction_id: "tx-1", nonce: Self.nonce, bi_req: "W10",
                                                    rp_id: "bi.passkey.test", origin: "https://bi.passkey.test",
                                                    allow_credentials: ["AQIDBA"])),
                         redirect_uri: redirectURI, state: "okta-state-1"),
            origin: .init(ip: "127.0.0.1", ua: "curl/8.5\u{7}", geo: "", ref: ""),
            indirect_uri: baseURL + "/v1/tenants/t1/realms/r1/transactions/tx-1/indirect")
    }

    /// base64url of 32 bytes: the WebAuthn challenge.
    static let nonce = "q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80"

    private func answer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Answer {
        state.withLock { state in
            state.requests.append(request)
            if request.method == "GET", request.path == Self.applicationPath + "/.well-known/jwks.json" {
                return .json(jwks(published: state.published))
            }
            return state.answers["\(request.method) \(request.path)"] ?? .json(#"{"error":"not_found"}"#, status: "404 Not Found")
        }
    }

    private func jwks(published: Set<String>) -> String {
        var keys: [String] = []
        if published.contains("rs-1"), let primitives = try? rsaKey.publicKey.getKeyPrimitives() {
            let n = Base64URL.encode(Array(primitives.modulus)), e = Base64URL.encode(Array(primitives.publicExponent))
            keys.append(#"{"kty":"RSA","alg":"RS256","use":"sig","kid":"rs-1","n":"\#(n)","e":"\#(e)"}"#)
        }
        for (kid, key) in [("es-1", ecKey), ("es-2", ecKey2)] where published.contains(kid) {
            if let p = key.parameters {
                keys.append(#"{"kty":"EC","crv":"P-256","alg":"ES256","use":"sig","kid":"\#(kid)","x":"\#(p.x)","y":"\#(p.y)"}"#)
            }
        }
        return #"{"keys":["# + keys.joined(separator: ",") + "]}"
    }
}

struct WeakIdentityProvider {
    weak var provider: TestIdentityProvider?
}

enum Clock {
    @Sendable static func real() -> Int64 { Int64(Date().timeIntervalSince1970) }
}

/// A request JWT's claims as a test writes them (the contract's shape).
struct RequestJWTClaims: JWTPayload {
    struct App: Codable { var id: String; var display_name: String? }
    struct Prove: Codable {
        var transaction_id: String
        var nonce: String
        var bi_req: String
        var rp_id: String
        var origin: String
        var allow_credentials: [String]
    }
    struct Action: Codable { var prove: Prove }
    struct Authn: Codable {
        var base_url: String
        var tid: String
        var rid: String
        var aid: String
        var action: Action
        var redirect_uri: String
        var state: String
    }
    struct Origin: Codable { var ip: String; var ua: String; var geo: String; var ref: String }

    var iss: String
    var sub: String
    var aud: [String]
    var iat: Double?
    var nbf: Double?
    var exp: Double?
    var jti: String
    var cid: String
    var verb: String
    var app: App
    var authn: Authn
    var origin: Origin
    var indirect_uri: String

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
