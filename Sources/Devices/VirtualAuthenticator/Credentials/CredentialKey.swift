import Crypto
import FoundationEssentials
import WebAuthn

/// A credential's private key: ES256 (P-256 ECDSA) or EdDSA (Ed25519).
enum CredentialKey: Sendable {
    case es256(P256.Signing.PrivateKey)
    case ed25519(Curve25519.Signing.PrivateKey)

    /// makeCredential picks the first of the request's algorithms that is in this list.
    static let supportedAlgorithms: [COSEAlgorithm] = [.es256, .edDSA]

    static func generate(_ algorithm: COSEAlgorithm) -> CredentialKey? {
        switch algorithm {
        case .es256: return .es256(P256.Signing.PrivateKey())
        case .edDSA: return .ed25519(Curve25519.Signing.PrivateKey())
        default: return nil
        }
    }

    /// Rebuilds a key from its 32-byte raw form (P-256 scalar or Ed25519 seed).
    init?(algorithm: COSEAlgorithm, raw: [UInt8]) {
        guard raw.count == 32 else { return nil }
        switch algorithm {
        case .es256:
            guard let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) else { return nil }
            self = .es256(key)
        case .edDSA:
            guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else { return nil }
            self = .ed25519(key)
        default:
            return nil
        }
    }

    var algorithm: COSEAlgorithm {
        switch self {
        case .es256: return .es256
        case .ed25519: return .edDSA
        }
    }

    var rawRepresentation: [UInt8] {
        switch self {
        case .es256(let key): return [UInt8](key.rawRepresentation)
        case .ed25519(let key): return [UInt8](key.rawRepresentation)
        }
    }

    var publicKey: COSEKey {
        switch self {
        case .es256(let key): return COSEKey(p256: key.publicKey)
        case .ed25519(let key): return COSEKey(ed25519: key.publicKey)
        }
    }

    /// A WebAuthn signature over `message`: ASN.1 DER ECDSA, or raw Ed25519 (CTAP 2.1 §6.5.5).
    func sign(_ message: [UInt8]) throws(CTAPStatus) -> [UInt8] {
        do {
            switch self {
            case .es256(let key): return [UInt8](try key.signature(for: message).derRepresentation)
            case .ed25519(let key): return [UInt8](try key.signature(for: message))
            }
        } catch {
            throw .other
        }
    }
}

/// The credProtect levels (CTAP 2.1 §12.1).
enum CredProtect: UInt8, Sendable, Comparable {
    case userVerificationOptional = 1
    case userVerificationOptionalWithCredentialIDList = 2
    case userVerificationRequired = 3

    static func < (a: CredProtect, b: CredProtect) -> Bool { a.rawValue < b.rawValue }

    /// Whether the credential may be used in this situation:
    /// level 3 only with UV; level 2 without UV only when named in an allowList.
    func permits(userVerified: Bool, namedInAllowList: Bool) -> Bool {
        switch self {
        case .userVerificationOptional: return true
        case .userVerificationOptionalWithCredentialIDList: return userVerified || namedInAllowList
        case .userVerificationRequired: return userVerified
        }
    }
}
