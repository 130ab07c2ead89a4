#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How a virtual authenticator is built: where its state lives, which
/// attestation it gives, and how its simulated user behaves.
public struct VirtualAuthenticatorConfiguration: Sendable, Equatable {
    /// The attestation statement makeCredential returns.
    public enum Attestation: String, Sendable, Equatable {
        /// `packed` self attestation: `{alg, sig}` signed by the new credential's own key, no x5c.
        case packedSelf = "packed"
        /// `none`: an empty attestation statement.
        case none = "none"
    }

    /// The AAGUID this project's virtual authenticator reports unless told otherwise:
    /// `6f4d2a1e-9c3b-4e57-8a60-2b7d1c5e9f03`.
    public static let defaultAAGUID: [UInt8] = [
        0x6F, 0x4D, 0x2A, 0x1E, 0x9C, 0x3B, 0x4E, 0x57,
        0x8A, 0x60, 0x2B, 0x7D, 0x1C, 0x5E, 0x9F, 0x03,
    ]

    /// Environment variable that overrides `presence` (see `applyingEnvironment`).
    public static let presenceEnvironmentVariable = "PASSKEY_VIRTUAL_PRESENCE"
    /// Environment variable that overrides `verification`.
    public static let verificationEnvironmentVariable = "PASSKEY_VIRTUAL_VERIFICATION"

    /// The JSON state file, or nil to keep everything in memory (lost when the instance goes).
    public var statePath: String?
    public var attestation: Attestation
    /// What the simulated user does when asked for a touch.
    public var presence: UserActionPolicy
    /// What the simulated user does when asked for a fingerprint (built-in UV).
    public var verification: UserActionPolicy
    /// True models a biometric key (GetInfo option `uv`, getPinUvAuthTokenUsingUvWithPermissions);
    /// false models a PIN-only key.
    public var builtInUV: Bool
    /// 16 bytes.
    public var aaguid: [UInt8]
    /// How long a `timeout` policy (and an `approve-after` longer than this) waits
    /// before USER_ACTION_TIMEOUT. CTAP suggests 30 s.
    public var userActionTimeoutMilliseconds: Int
    /// How long after power-up (constructing the instance) authenticatorReset is
    /// allowed. CTAP 2.1 §6.6 says 10 s.
    public var resetWindowMilliseconds: Int
    /// What GetInfo reports as transports (CTAP 2.1 §6.4, member 0x09): "usb"
    /// for the HID device, "nfc" for the virtual card's FIDO2 applet.
    public var transports: [String]

    public init(statePath: String? = nil,
                attestation: Attestation = .packedSelf,
                presence: UserActionPolicy = .approve,
                verification: UserActionPolicy = .approve,
                builtInUV: Bool = true,
                aaguid: [UInt8] = VirtualAuthenticatorConfiguration.defaultAAGUID,
                userActionTimeoutMilliseconds: Int = 30_000,
                resetWindowMilliseconds: Int = 10_000,
                transports: [String] = ["usb"]) {
        self.statePath = statePath
        self.attestation = attestation
        self.presence = presence
        self.verification = verification
        self.builtInUV = builtInUV
        self.aaguid = aaguid
        self.userActionTimeoutMilliseconds = userActionTimeoutMilliseconds
        self.resetWindowMilliseconds = resetWindowMilliseconds
        self.transports = transports
    }

    /// This configuration with the policies replaced by `PASSKEY_VIRTUAL_PRESENCE`
    /// and `PASSKEY_VIRTUAL_VERIFICATION` where those are set and non-empty.
    /// `environment` nil reads the process environment.
    public func applyingEnvironment(_ environment: [String: String]? = nil) throws(VirtualAuthenticatorError) -> Self {
        func lookup(_ name: String) -> String? {
            if let environment { return environment[name] }
            guard let value = getenv(name) else { return nil }
            return String(cString: value)
        }
        var result = self
        if let text = lookup(Self.presenceEnvironmentVariable), !text.trimmingASCIISpaces().isEmpty {
            result.presence = try UserActionPolicy(parsing: text, source: Self.presenceEnvironmentVariable)
        }
        if let text = lookup(Self.verificationEnvironmentVariable), !text.trimmingASCIISpaces().isEmpty {
            result.verification = try UserActionPolicy(parsing: text, source: Self.verificationEnvironmentVariable)
        }
        return result
    }

    /// Checks the values the engine relies on.
    func validated() throws(VirtualAuthenticatorError) -> Self {
        guard aaguid.count == 16 else {
            throw .invalidConfiguration("aaguid must be 16 bytes, got \(aaguid.count)")
        }
        guard (0...UserActionPolicy.maximumMilliseconds).contains(userActionTimeoutMilliseconds) else {
            throw .invalidConfiguration("userActionTimeoutMilliseconds must be 0…\(UserActionPolicy.maximumMilliseconds)")
        }
        guard resetWindowMilliseconds >= 0 else {
            throw .invalidConfiguration("resetWindowMilliseconds must not be negative")
        }
        if let statePath, statePath.isEmpty {
            throw .invalidConfiguration("statePath is empty; pass nil to keep the state in memory")
        }
        return self
    }
}
