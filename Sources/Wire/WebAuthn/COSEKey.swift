import CBOR
import Crypto
import CryptoExtras
import FoundationEssentials

/// A credential public key in COSE_Key form (RFC 9052 §7, WebAuthn L3 §6.5.1.1).
///
/// Encoding is canonical and carries exactly kty, alg, crv and the coordinates,
/// as authenticators must emit it.
public enum COSEKey: Sendable, Equatable {
    /// kty 2 (EC2), crv 1 (P-256), alg -7.
    case es256(x: [UInt8], y: [UInt8])
    /// kty 1 (OKP), crv 6 (Ed25519), alg -8.
    case ed25519(x: [UInt8])
    /// kty 3 (RSA), alg -257 (RSASSA-PKCS1-v1_5 with SHA-256). Verification only.
    case rs256(n: [UInt8], e: [UInt8])

    public var algorithm: COSEAlgorithm {
        switch self {
        case .es256: return .es256
        case .ed25519: return .edDSA
        case .rs256: return .rs256
        }
    }

    public var cbor: CBOR {
        switch self {
        case .es256(let x, let y):
            return [1: 2, 3: .int(COSEAlgorithm.es256.rawValue), -1: 1, -2: .bytes(x), -3: .bytes(y)]
        case .ed25519(let x):
            return [1: 1, 3: .int(COSEAlgorithm.edDSA.rawValue), -1: 6, -2: .bytes(x)]
        case .rs256(let n, let e):
            return [1: 3, 3: .int(COSEAlgorithm.rs256.rawValue), -1: .bytes(n), -2: .bytes(e)]
        }
    }

    public func encoded() -> [UInt8] { cbor.encoded() }

    public init(p256 key: P256.Signing.PublicKey) {
        let raw = [UInt8](key.rawRepresentation)  // x ‖ y, 64 bytes
        self = .es256(x: Array(raw[0..<32]), y: Array(raw[32..<64]))
    }

    public init(ed25519 key: Curve25519.Signing.PublicKey) {
        self = .ed25519(x: [UInt8](key.rawRepresentation))
    }

    /// Parses a COSE_Key map; unknown algorithms and malformed keys are typed errors.
    public init(cbor: CBOR) throws(WebAuthnError) {
        guard let map = cbor.mapValue else {
            throw .malformed("COSE key", reason: "expected a map, found \(cbor.typeName)")
        }
        guard let kty = map[.int(1)]?.intValue else { throw .malformed("COSE key", reason: "kty (1) missing") }
        guard let alg = map[.int(3)]?.intValue else { throw .malformed("COSE key", reason: "alg (3) missing") }
        switch (kty, alg) {
        case (2, -7):
            guard map[.int(-1)]?.intValue == 1 else { throw .malformed("COSE key", reason: "ES256 needs crv 1 (P-256)") }
            guard let x = map[.int(-2)]?.bytesValue, x.count == 32,
                  let y = map[.int(-3)]?.bytesValue, y.count == 32 else {
                throw .malformed("COSE key", reason: "P-256 coordinates must be 32-byte strings")
            }
            self = .es256(x: x, y: y)
        case (1, -8):
            guard map[.int(-1)]?.intValue == 6 else { throw .malformed("COSE key", reason: "EdDSA needs crv 6 (Ed25519)") }
            guard let x = map[.int(-2)]?.bytesValue, x.count == 32 else {
                throw .malformed("COSE key", reason: "Ed25519 x must be a 32-byte string")
            }
            self = .ed25519(x: x)
        case (3, -257):
            guard let n = map[.int(-1)]?.bytesValue, n.count >= 256,
                  let e = map[.int(-2)]?.bytesValue, !e.isEmpty else {
                throw .malformed("COSE key", reason: "RSA n must be at least 2048 bits and e present")
            }
            self = .rs256(n: n, e: e)
        default:
            throw .unsupportedAlgorithm(Int(alg))
        }
    }

    public init(encoded bytes: [UInt8]) throws(WebAuthnError) {
        let item: CBOR
        do { item = try CBOR.decode(bytes) } catch {
            throw .malformed("COSE key", reason: error.description)
        }
        try self.init(cbor: item)
    }

    /// Checks a WebAuthn signature (ECDSA in ASN.1 DER, raw Ed25519, PKCS#1 v1.5 RSA)
    /// over `message` — for assertions, authenticatorData ‖ SHA-256(clientDataJSON).
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        switch self {
        case .es256(let x, let y):
            guard let key = try? P256.Signing.PublicKey(rawRepresentation: x + y),
                  let sig = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: SHA256.hash(data: message))
        case .ed25519(let x):
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else { return false }
            return key.isValidSignature(signature, for: message)
        case .rs256(let n, let e):
            guard let key = try? _RSA.Signing.PublicKey(n: Data(n), e: Data(e)) else { return false }
            let sig = _RSA.Signing.RSASignature(rawRepresentation: signature)
            return key.isValidSignature(sig, for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5)
        }
    }
}
