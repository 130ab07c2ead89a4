import PIVWire

/// PIV algorithm identifiers (SP 800-78-4 Table 6-2, and Yubico's additions).
public struct PIVAlgorithm: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let tripleDES = PIVAlgorithm(rawValue: PIVAlgorithmID.tripleDES)
    public static let rsa1024 = PIVAlgorithm(rawValue: PIVAlgorithmID.rsa1024)
    public static let rsa2048 = PIVAlgorithm(rawValue: PIVAlgorithmID.rsa2048)
    public static let aes128 = PIVAlgorithm(rawValue: PIVAlgorithmID.aes128)
    public static let aes192 = PIVAlgorithm(rawValue: PIVAlgorithmID.aes192)
    public static let aes256 = PIVAlgorithm(rawValue: PIVAlgorithmID.aes256)
    public static let eccP256 = PIVAlgorithm(rawValue: PIVAlgorithmID.eccP256)
    public static let eccP384 = PIVAlgorithm(rawValue: PIVAlgorithmID.eccP384)
    public static let rsa3072 = PIVAlgorithm(rawValue: PIVAlgorithmID.rsa3072)
    public static let rsa4096 = PIVAlgorithm(rawValue: PIVAlgorithmID.rsa4096)
    public static let ed25519 = PIVAlgorithm(rawValue: PIVAlgorithmID.ed25519)
    public static let x25519 = PIVAlgorithm(rawValue: PIVAlgorithmID.x25519)

    /// The key length in bytes of a management-key (symmetric) algorithm.
    var symmetricKeyLength: Int? { ManagementKeyCipher.keyLength(for: rawValue) }

    /// "P-256", "3DES", …
    public var description: String {
        switch self {
        case .tripleDES: return "3DES"
        case .rsa1024: return "RSA-1024"
        case .rsa2048: return "RSA-2048"
        case .rsa3072: return "RSA-3072"
        case .rsa4096: return "RSA-4096"
        case .aes128: return "AES-128"
        case .aes192: return "AES-192"
        case .aes256: return "AES-256"
        case .eccP256: return "P-256"
        case .eccP384: return "P-384"
        case .ed25519: return "Ed25519"
        case .x25519: return "X25519"
        default: return "algorithm 0x" + String(rawValue, radix: 16)
        }
    }
}

/// When a key asks for the PIN (Yubico tag AA); `.default` keeps the slot's own rule.
public enum PIVPINPolicy: UInt8, Sendable, Codable {
    case `default` = 0
    case never = 1
    case once = 2
    case always = 3
}

/// When a key asks for a touch (Yubico tag AB).
public enum PIVTouchPolicy: UInt8, Sendable, Codable {
    case `default` = 0
    case never = 1
    case always = 2
    case cached = 3
}
