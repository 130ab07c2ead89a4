import CryptoExtras
import Base64
import Crypto
import FoundationEssentials
import Harness
import HTTPTransport
import JWTKit
import OpenID
import Locking

/// A small OpenID provider on a real loopback HTTP server, for the OpenID
/// tests: discovery, a JWKS, token, device and revocation endpoints, with
/// answers the test scripts. It signs ID tokens with jwt-kit: an ES256 key
/// (`es-1`, published with `alg`) and an RS256 key (`rs-1`, published
/// WITHOUT `alg`, as oidc-provider-mock does), plus `es-2`, which is only
/// published when a test says so (a key rotation).
final class TestProvider: Sendable {
    struct State {
        var discoveryIssuer: String?
        var issParameterSupported = true
        var extraDiscovery: [String: String] = [:]
        /// Members left out of the discovery document.
        var omittedFromDiscovery: Set<String> = []
        /// The RFC 8414 document at /.well-known/oauth-authorization-server/oauth2/default (nil: 404).
        var authorizationServerMetadata: String?
        var published: Set<String> = ["es-1", "rs-1"]
        var tokenAnswers: [LoopbackHTTPServer.Answer] = []
        var deviceAnswer: LoopbackHTTPServer.Answer?
        var requests: [LoopbackHTTPServer.Request] = []
        var discoveryFetches = 0
        var jwksFetches = 0
        var cacheControl = "max-age=300"
    }

    let state = Locked(State())
    private let server: LoopbackHTTPServer
    let signers = JWTKeyCollection()
    let ecKey = ES256PrivateKey()
    let ecKey2 = ES256PrivateKey()
    let rsaKey: JWTKit.Insecure.RSA.PrivateKey
    let transport = HTTPTransport()

    static let clientId = "cli"

    var issuer: String { server.url("/oauth2/default") }
    var tokenEndpoint: String { issuer + "/v1/token" }

    init() async throws {
        rsaKey = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        // The server's threads reach the provider weakly: the test's last
        // reference going stops the server (deinit).
        let box = Locked(WeakProvider())
        server = try LoopbackHTTPServer { request in
            box.withLock { $0.provider }?.answer(request) ?? .json("{}", status: "503 Service Unavailable")
        }
        box.withLock { $0.provider = self }
        await signers.add(ecdsa: ecKey, kid: "es-1")
        await signers.add(ecdsa: ecKey2, kid: "es-2")
        await signers.add(rsa: rsaKey, digestAlgorithm: .sha256, kid: "rs-1")
    }

    deinit { server.stop() }

    func provider(cacheDirectory: String? = nil, now: @escaping @Sendable () -> Int64 = TokenClock.real) -> OpenIDProvider {
        OpenIDProvider(issuer: issuer, transport: transport, cacheDirectory: cacheDirectory, now: now)
    }

    /// The token endpoint's next answers, in order (after them: `invalid_request`).
    func scriptTokenAnswers(_ answers: [LoopbackHTTPServer.Answer]) {
        state.withLock { $0.tokenAnswers = answers }
    }

    func requests(to suffix: String) -> [LoopbackHTTPServer.Request] {
        state.withLock { $0.requests.filter { $0.path.hasSuffix(suffix) } }
    }

    private func answer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Answer {
        state.withLock { $0.requests.append(request) }
        let base = "/oauth2/default"
        switch (request.method, String(request.path)) {
        case ("GET", base + "/.well-known/openid-configuration"):
            return state.withLock { state in
                state.discoveryFetches += 1
                return .json(discoveryDocument(state), headers: [("Cache-Control", state.cacheControl)])
            }
        case ("GET", "/.well-known/oauth-authorization-server" + base):
            return state.withLock { $0.authorizationServerMetadata }.map { .json($0) }
                ?? .json(#"{"error":"not_found"}"#, status: "404 Not Found")
        case ("GET", base + "/v1/keys"):
            return state.withLock { state in
                state.jwksFetches += 1
                return .json(jwks(published: state.published), headers: [("Cache-Control", state.cacheControl)])
            }
        case ("POST", base + "/v1/token"):
            return state.withLock { state in
                state.tokenAnswers.isEmpty ? .json(#"{"error":"invalid_request"}"#, status: "400 Bad Request")
                    : state.tokenAnswers.removeFirst()
            }
        case ("POST", base + "/v1/device/authorize"):
            return state.withLock { $0.deviceAnswer } ?? .json(#"{"error":"unauthorized_client"}"#, status: "400 Bad Request")
        case ("POST", base + "/v1/revoke"):
            return .json("")
        default:
            return .json(#"{"error":"not_found"}"#, status: "404 Not Found")
        }
    }

    private func discoveryDocument(_ state: State) -> String {
        var members: [String: String] = [
            "issuer": quoted(state.discoveryIssuer ?? issuer),
            "authorization_endpoint": quoted(issuer + "/v1/authorize"),
            "token_endpoint": quoted(tokenEndpoint),
            "jwks_uri": quoted(issuer + "/v1/keys"),
            "revocation_endpoint": quoted(issuer + "/v1/revoke"),
            "device_authorization_endpoint": quoted(issuer + "/v1/device/authorize"),
            "code_challenge_methods_supported": #"["S256"]"#,
            "authorization_response_iss_parameter_supported": state.issParameterSupported ? "true" : "false",
            "id_token_signing_alg_values_supported": #"["ES256","RS256"]"#,
        ]
        for (name, value) in state.extraDiscovery { members[name] = value }
        for name in state.omittedFromDiscovery { members[name] = nil }
        return "{" + members.sorted { $0.key < $1.key }.map { "\(quoted($0.key)):\($0.value)" }.joined(separator: ",") + "}"
    }

    private func jwks(published: Set<String>) -> String {
        var keys: [String] = []
        if published.contains("es-1"), let p = ecKey.parameters {
            keys.append(#"{"kty":"EC","crv":"P-256","alg":"ES256","use":"sig","kid":"es-1","x":"\#(p.x)","y":"\#(p.y)"}"#)
        }
        if published.contains("es-2"), let p = ecKey2.parameters {
            keys.append(#"{"kty":"EC","crv":"P-256","alg":"ES256","use":"sig","kid":"es-2","x":"\#(p.x)","y":"\#(p.y)"}"#)
        }
        if published.contains("rs-1"), let primitives = try? rsaKey.publicKey.getKeyPrimitives() {
            let n = Base64URL.encode(Array(primitives.modulus)), e = Base64URL.encode(Array(primitives.publicExponent))
            keys.append(#"{"kty":"RSA","kid":"rs-1","n":"\#(n)","e":"\#(e)"}"#)
        }
        // A key jwt-kit cannot represent: skipped, not fatal.
        keys.append(#"{"kty":"oct","kid":"hmac","k":"c2VjcmV0"}"#)
        return #"{"keys":["# + keys.joined(separator: ",") + "]}"
    }

    /// An ID token signed by `kid` with these claims (nil members left out).
    func idToken(_ claims: TestClaims, kid: String = "es-1") async throws -> String {
        try await signers.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// Claims that pass every check at `now` for `nonce`.
    func claims(now: Int64 = TokenClock.real(), nonce: String? = "n-1") -> TestClaims {
        TestClaims(iss: issuer, sub: "alice", aud: .one(Self.clientId), exp: Double(now + 300), iat: Double(now - 10),
                   nonce: nonce, email: "alice@example.com")
    }
}

struct WeakProvider {
    weak var provider: TestProvider?
}

/// The clock the tests hand the OpenID types.
enum TokenClock {
    @Sendable static func real() -> Int64 { Int64(Date().timeIntervalSince1970) }
}

/// ID-token claims as a test writes them: any member may be left out or odd.
struct TestClaims: JWTPayload {
    enum Audience: Codable {
        case one(String), many([String])

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .one(let value): try container.encode(value)
            case .many(let values): try container.encode(values)
            }
        }

        init(from decoder: any Decoder) throws { self = .one(try decoder.singleValueContainer().decode(String.self)) }
    }

    var iss: String?
    var sub: String?
    var aud: Audience?
    var azp: String?
    var exp: Double?
    var iat: Double?
    var auth_time: Double?
    var nonce: String?
    var email: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

func quoted(_ text: String) -> String { "\"" + text + "\"" }
