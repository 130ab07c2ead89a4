import Base64
import DevServerBase
import JWTKit
import PasswordlessDevServer
import WebAuthn

/// Signs and checks the server's JWTs with jwt-kit (no hand-written JOSE), and
/// publishes the public halves as a JWKS.
package struct TokenSigner: Sendable {
    private let collection: JWTKeyCollection
    /// Only the ES256 key: an access token is never accepted under the RS256 key.
    private let accessTokenKeys: JWTKeyCollection
    private let material: SigningKeyMaterial
    /// The JWKS document, built once.
    let jwks: JWKSDocument

    package init(_ material: SigningKeyMaterial) async throws {
        let es256 = try ES256PrivateKey(pem: material.es256PrivateKeyPEM)
        let rs256 = try Insecure.RSA.PrivateKey(pem: material.rs256PrivateKeyPEM)
        let collection = JWTKeyCollection()
        await collection.add(ecdsa: es256, kid: JWKIdentifier(string: material.es256KeyId))
        await collection.add(rsa: rs256, digestAlgorithm: .sha256, kid: JWKIdentifier(string: material.rs256KeyId))
        guard let point = es256.publicKey.parameters else { throw JWTError.generic(identifier: "ES256", reason: "no public point") }
        let primitives = try rs256.publicKey.getKeyPrimitives()
        self.collection = collection
        accessTokenKeys = JWTKeyCollection()
        await accessTokenKeys.add(ecdsa: es256.publicKey, kid: JWKIdentifier(string: material.es256KeyId))
        self.material = material
        jwks = JWKSDocument(keys: [
            .init(kty: "EC", kid: material.es256KeyId, alg: "ES256", crv: "P-256", x: point.x, y: point.y, n: nil, e: nil),
            .init(kty: "RSA", kid: material.rs256KeyId, alg: "RS256", crv: nil, x: nil, y: nil,
                  n: Base64URL.encode(Array(primitives.modulus)), e: Base64URL.encode(Array(primitives.publicExponent))),
        ])
    }

    func sign(_ payload: some JWTPayload, with algorithm: IDTokenAlgorithm) async throws -> String {
        let kid = algorithm == .es256 ? material.es256KeyId : material.rs256KeyId
        return try await collection.sign(payload, kid: JWKIdentifier(string: kid))
    }

    /// The payload of a JWT this server signed with its ES256 key; nil for
    /// anything else (other keys, other algorithms, bad signatures, garbage).
    /// Claims are checked by the caller.
    func verifiedAccessToken(_ token: String) async -> AccessTokenClaims? {
        guard token.utf8.count <= 8 * 1024 else { return nil }
        return try? await accessTokenKeys.verify(token, as: AccessTokenClaims.self)
    }
}
