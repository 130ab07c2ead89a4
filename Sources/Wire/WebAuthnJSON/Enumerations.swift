// The string enumerations of WebAuthn L3 §5.4 and §5.8. They decode
// tolerantly where they appear (see TolerantDecoding.swift): a value this
// library does not know is ignored, as the specification requires of clients.

/// §5.4.6 ResidentKeyRequirement.
public enum ResidentKeyRequirement: String, Sendable, Codable, CaseIterable {
    case discouraged, preferred, required
}

/// §5.8.6 UserVerificationRequirement. Absent means `preferred`.
public enum UserVerificationRequirement: String, Sendable, Codable, CaseIterable {
    case required, preferred, discouraged
}

/// §5.4.5 AuthenticatorAttachment.
public enum AuthenticatorAttachment: String, Sendable, Codable, CaseIterable {
    case platform
    case crossPlatform = "cross-platform"
}

/// §5.8.7 PublicKeyCredentialHint.
public enum PublicKeyCredentialHint: String, Sendable, Codable, CaseIterable {
    case securityKey = "security-key"
    case clientDevice = "client-device"
    case hybrid
}

/// §5.4.7 AttestationConveyancePreference. Absent means `none`.
public enum AttestationConveyancePreference: String, Sendable, Codable, CaseIterable {
    case none, indirect, direct, enterprise
}

/// The credProtect levels as WebAuthn's `credentialProtectionPolicy` names them
/// (CTAP 2.1 §12.1).
public enum CredentialProtectionPolicy: String, Sendable, Codable, CaseIterable {
    case userVerificationOptional
    case userVerificationOptionalWithCredentialIDList
    case userVerificationRequired

    /// The CTAP `credProtect` value (1, 2 or 3).
    public var ctapValue: Int {
        switch self {
        case .userVerificationOptional: return 1
        case .userVerificationOptionalWithCredentialIDList: return 2
        case .userVerificationRequired: return 3
        }
    }
}

/// §5.8.4 AuthenticatorTransport.
///
/// A string rather than a closed enumeration: relying parties must store the
/// transports a client reports, including ones newer than this library, and
/// hand them back unchanged in `allowCredentials`/`excludeCredentials`.
public struct AuthenticatorTransport: RawRepresentable, Sendable, Hashable, Codable,
    ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    public static let usb: AuthenticatorTransport = "usb"
    public static let nfc: AuthenticatorTransport = "nfc"
    public static let ble: AuthenticatorTransport = "ble"
    public static let smartCard: AuthenticatorTransport = "smart-card"
    public static let hybrid: AuthenticatorTransport = "hybrid"
    public static let `internal`: AuthenticatorTransport = "internal"

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
