import DecodingErrors
import FoundationEssentials
import Tokens
import URLPolicy

/// What an OpenID provider's discovery document (OIDC Discovery §3, RFC
/// 8414 §2) tells a public native client. Codable in this shape for the
/// on-disk cache; `ProviderMetadata(discoveryDocument:issuer:url:)` reads the
/// provider's own snake_case JSON.
public struct ProviderMetadata: Codable, Sendable, Equatable {
    public var issuer: String
    public var authorizationEndpoint: String
    public var tokenEndpoint: String
    public var jwksURI: String
    public var userinfoEndpoint: String?
    public var revocationEndpoint: String?
    public var deviceAuthorizationEndpoint: String?
    public var endSessionEndpoint: String?
    /// [] when absent. PKCE S256 is sent whatever this says (RFC 8252 §8.1).
    public var codeChallengeMethodsSupported: [String]
    /// RFC 9207: when true, an authorization response without `iss` is refused.
    public var authorizationResponseIssParameterSupported: Bool
    /// [] when absent.
    public var idTokenSigningAlgValuesSupported: [String]

    public init(issuer: String, authorizationEndpoint: String, tokenEndpoint: String, jwksURI: String,
                userinfoEndpoint: String? = nil, revocationEndpoint: String? = nil,
                deviceAuthorizationEndpoint: String? = nil, endSessionEndpoint: String? = nil,
                codeChallengeMethodsSupported: [String] = [], authorizationResponseIssParameterSupported: Bool = false,
                idTokenSigningAlgValuesSupported: [String] = []) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.userinfoEndpoint = userinfoEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.authorizationResponseIssParameterSupported = authorizationResponseIssParameterSupported
        self.idTokenSigningAlgValuesSupported = idTokenSigningAlgValuesSupported
    }

    /// Reads a discovery document fetched from `url` for `issuer`: the
    /// document's `issuer` must equal `issuer` exactly, and every endpoint
    /// must pass `checked(issuer:url:)`.
    public init(discoveryDocument bytes: [UInt8], issuer: String, url: String) throws(OpenIDError) {
        let document: DiscoveryDocument
        do {
            document = try JSONDecoder().decode(DiscoveryDocument.self, from: Data(bytes))
        } catch {
            throw .discovery(url: url, reason: Self.decodingReason(error))
        }
        guard let documentIssuer = document.issuer else { throw .discovery(url: url, reason: "`issuer` is missing") }
        guard documentIssuer == issuer else {
            throw .discoveryIssuerMismatch(expected: issuer, got: TokenError.sanitised(documentIssuer) ?? "")
        }
        func required(_ value: String?, _ member: String) throws(OpenIDError) -> String {
            guard let value, !value.isEmpty else { throw .discovery(url: url, reason: "`\(member)` is missing") }
            return value
        }
        self.init(issuer: documentIssuer,
                  authorizationEndpoint: try required(document.authorization_endpoint, "authorization_endpoint"),
                  tokenEndpoint: try required(document.token_endpoint, "token_endpoint"),
                  jwksURI: try required(document.jwks_uri, "jwks_uri"),
                  userinfoEndpoint: document.userinfo_endpoint, revocationEndpoint: document.revocation_endpoint,
                  deviceAuthorizationEndpoint: document.device_authorization_endpoint,
                  endSessionEndpoint: document.end_session_endpoint,
                  codeChallengeMethodsSupported: document.code_challenge_methods_supported ?? [],
                  authorizationResponseIssParameterSupported: document.authorization_response_iss_parameter_supported ?? false,
                  idTokenSigningAlgValuesSupported: document.id_token_signing_alg_values_supported ?? [])
        try check(issuer: issuer, url: url)
    }

    /// Every endpoint is a URL tokens (or the user's browser) may be sent to —
    /// https, or http to this machine — and the authorization endpoint has no
    /// fragment (RFC 6749 §3.1). Run on fetched documents and on cached ones
    /// (a cache file is outside input too).
    func check(issuer expected: String, url: String) throws(OpenIDError) {
        guard issuer == expected else { throw .discoveryIssuerMismatch(expected: expected, got: TokenError.sanitised(issuer) ?? "") }
        let endpoints: [(String, String?)] = [
            ("authorization_endpoint", authorizationEndpoint), ("token_endpoint", tokenEndpoint), ("jwks_uri", jwksURI),
            ("userinfo_endpoint", userinfoEndpoint), ("revocation_endpoint", revocationEndpoint),
            ("device_authorization_endpoint", deviceAuthorizationEndpoint), ("end_session_endpoint", endSessionEndpoint),
        ]
        for case let (member, value?) in endpoints {
            if let problem = Endpoint.problem(value) {
                throw .discovery(url: url, reason: "`\(member)` \"\(Endpoint.shown(value))\" cannot be used: \(problem)")
            }
        }
        if authorizationEndpoint.contains("#") {
            throw .discovery(url: url, reason: "`authorization_endpoint` has a fragment (RFC 6749 §3.1 forbids one)")
        }
    }

    /// The member at fault and why, never the value.
    private static func decodingReason(_ error: any Error) -> String {
        guard let problem = DecodingProblem(error) else { return "it is not JSON" }
        if let missing = problem.missingMemberPath { return "`\(missing)` is missing" }
        switch problem.kind {
        case .wrongType(let expected), .null(let expected): return "`\(problem.path)` should be \(Self.article(expected))"
        case .invalid where problem.path.isEmpty: return "it is not a JSON object"
        default: return "`\(problem.path)` cannot be read"
        }
    }

    private static func article(_ kind: JSONKind) -> String {
        switch kind {
        case .string: return "a string"
        case .boolean: return "true or false"
        case .number: return "a number"
        case .array: return "an array of strings"
        case .object: return "an object"
        }
    }
}

/// The members of a discovery document we read, as the provider spells them.
/// Unknown members are ignored; a known one of the wrong type is an error.
private struct DiscoveryDocument: Decodable {
    var issuer: String?
    var authorization_endpoint: String?
    var token_endpoint: String?
    var jwks_uri: String?
    var userinfo_endpoint: String?
    var revocation_endpoint: String?
    var device_authorization_endpoint: String?
    var end_session_endpoint: String?
    var code_challenge_methods_supported: [String]?
    var authorization_response_iss_parameter_supported: Bool?
    var id_token_signing_alg_values_supported: [String]?
}
