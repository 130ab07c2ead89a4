import FoundationEssentials
import JWTKit

/// A provider's JWKS (RFC 7517 §5), read leniently: a key jwt-kit cannot
/// represent (an `oct` key, an encryption key, an unknown curve or `alg`)
/// is skipped rather than failing the whole set, since providers publish
/// such keys beside their signing keys.
public struct JSONWebKeySet: Sendable {
    public struct Key: Sendable {
        public var jwk: JWK
        public var kid: String?
        /// `use` (RFC 7517 §4.2) when given: only "sig" keys verify.
        public var use: String?
    }

    public var keys: [Key]

    /// Nil when `bytes` is not a JSON object with a `keys` array.
    public init?(_ bytes: [UInt8]) {
        guard let set = try? JSONDecoder().decode(Document.self, from: Data(bytes)) else { return nil }
        keys = set.keys.compactMap { entry in entry.jwk.map { Key(jwk: $0, kid: entry.kid, use: entry.use) } }
    }

    /// The keys that may have signed a token with header `kid` and `alg`: the
    /// same `kid` (compared exactly), a signing key of the family `alg`
    /// needs, and the `alg` the key names when it names one. A token without
    /// `kid` may only use a key set of one such key (OIDC Core §10.1).
    public func candidates(kid: String?, alg: String) -> [Key] {
        let usable = keys.filter { key in
            (key.use == nil || key.use == "sig") && Self.family(of: alg) == key.jwk.keyType
                && (key.jwk.algorithm == nil || key.jwk.algorithm?.rawValue == alg)
        }
        guard let kid else { return usable.count == 1 ? usable : [] }
        return usable.filter { $0.kid == kid }
    }

    /// The `kty` an allowed `alg` needs.
    static func family(of alg: String) -> JWK.KeyType? {
        switch alg.prefix(2) {
        case "RS", "PS": return .rsa
        case "ES": return .ecdsa
        case "Ed": return .octetKeyPair
        default: return nil
        }
    }

    private struct Document: Decodable {
        var keys: [Entry]
    }

    /// One member of `keys`: the JWK when jwt-kit reads it, nil otherwise.
    private struct Entry: Decodable {
        var jwk: JWK?
        var kid: String?
        var use: String?

        private enum CodingKeys: String, CodingKey { case kid, use }

        init(from decoder: any Decoder) throws {
            jwk = try? JWK(from: decoder)
            let container = try? decoder.container(keyedBy: CodingKeys.self)
            kid = try? container?.decodeIfPresent(String.self, forKey: .kid)
            use = try? container?.decodeIfPresent(String.self, forKey: .use)
        }
    }
}
