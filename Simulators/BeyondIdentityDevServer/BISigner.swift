import CryptoExtras
import Base64
import DevServerBase
import FoundationEssentials
import Hexadecimal
import JWTKit
import WebAuthn

/// The IdP's RS256 key (its own, not the Okta-like server's): signs request
/// JWTs and ID tokens with jwt-kit, publishes the public half as a JWKS, and
/// lets the Okta-like server check BI's ID tokens against that public half
/// only. Made at each start: the IdP keeps no state across restarts.
package struct BISigner: Sendable {
    private let signing: JWTKeyCollection
    private let verifying: JWTKeyCollection
    let keyId: String
    let jwks: JWKSDocument

    package init() async throws {
        let generated = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let key = try Insecure.RSA.PrivateKey(pem: generated.pemRepresentation)
        keyId = Hexadecimal.encode(AppKeys.randomBytes(32))
        signing = JWTKeyCollection()
        await signing.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: keyId))
        verifying = JWTKeyCollection()
        await verifying.add(rsa: key.publicKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: keyId))
        let primitives = try key.publicKey.getKeyPrimitives()
        jwks = JWKSDocument(keys: [
            .init(kty: "RSA", kid: keyId, alg: "RS256", crv: nil, x: nil, y: nil,
                  n: Base64URL.encode(Array(primitives.modulus)), e: Base64URL.encode(Array(primitives.publicExponent))),
        ])
    }

    /// A compact JWS, RS256, with `kid`, `typ: JWT` and, when given, `jku`.
    func sign(_ payload: some JWTPayload, jku: String? = nil) async throws -> String {
        var header = JWTHeader()
        header.typ = "JWT"
        header.jku = jku
        return try await signing.sign(payload, kid: JWKIdentifier(string: keyId), header: header)
    }

    /// The payload of a JWT this key signed; nil for anything else. Claims
    /// are checked by the caller.
    package func verified<Payload: JWTPayload>(_ token: String, as type: Payload.Type) async -> Payload? {
        guard token.utf8.count <= 16 * 1024 else { return nil }
        return try? await verifying.verify(token, as: type)
    }
}
