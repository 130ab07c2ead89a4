/// CTAP2 status codes (CTAP 2.1 §8.2) that this authenticator answers with.
///
/// Every command handler throws one of these; `.ok` is never thrown, it is the
/// first byte of a successful response.
public enum CTAPStatus: UInt8, Error, Sendable, CustomStringConvertible {
    case ok = 0x00
    case invalidCommand = 0x01
    case invalidParameter = 0x02
    case invalidLength = 0x03
    case cborUnexpectedType = 0x11
    case invalidCBOR = 0x12
    case missingParameter = 0x14
    case limitExceeded = 0x15
    case credentialExcluded = 0x19
    case unsupportedAlgorithm = 0x26
    case operationDenied = 0x27
    case keyStoreFull = 0x28
    case unsupportedOption = 0x2B
    case invalidOption = 0x2C
    case keepaliveCancel = 0x2D
    case noCredentials = 0x2E
    case userActionTimeout = 0x2F
    case notAllowed = 0x30
    case pinInvalid = 0x31
    case pinBlocked = 0x32
    case pinAuthInvalid = 0x33
    case pinAuthBlocked = 0x34
    case pinNotSet = 0x35
    case pinUvAuthTokenRequired = 0x36
    case pinPolicyViolation = 0x37
    case requestTooLarge = 0x39
    case uvBlocked = 0x3C
    case invalidSubcommand = 0x3E
    case uvInvalid = 0x3F
    case unauthorizedPermission = 0x40
    case other = 0x7F

    public var description: String {
        let hex = "0x" + String(rawValue, radix: 16, uppercase: true)
        switch self {
        case .ok: return "CTAP2_OK (\(hex))"
        case .invalidCommand: return "CTAP1_ERR_INVALID_COMMAND (\(hex))"
        case .invalidParameter: return "CTAP1_ERR_INVALID_PARAMETER (\(hex))"
        case .invalidLength: return "CTAP1_ERR_INVALID_LENGTH (\(hex))"
        case .cborUnexpectedType: return "CTAP2_ERR_CBOR_UNEXPECTED_TYPE (\(hex))"
        case .invalidCBOR: return "CTAP2_ERR_INVALID_CBOR (\(hex))"
        case .missingParameter: return "CTAP2_ERR_MISSING_PARAMETER (\(hex))"
        case .limitExceeded: return "CTAP2_ERR_LIMIT_EXCEEDED (\(hex))"
        case .credentialExcluded: return "CTAP2_ERR_CREDENTIAL_EXCLUDED (\(hex))"
        case .unsupportedAlgorithm: return "CTAP2_ERR_UNSUPPORTED_ALGORITHM (\(hex))"
        case .operationDenied: return "CTAP2_ERR_OPERATION_DENIED (\(hex))"
        case .keyStoreFull: return "CTAP2_ERR_KEY_STORE_FULL (\(hex))"
        case .unsupportedOption: return "CTAP2_ERR_UNSUPPORTED_OPTION (\(hex))"
        case .invalidOption: return "CTAP2_ERR_INVALID_OPTION (\(hex))"
        case .keepaliveCancel: return "CTAP2_ERR_KEEPALIVE_CANCEL (\(hex))"
        case .noCredentials: return "CTAP2_ERR_NO_CREDENTIALS (\(hex))"
        case .userActionTimeout: return "CTAP2_ERR_USER_ACTION_TIMEOUT (\(hex))"
        case .notAllowed: return "CTAP2_ERR_NOT_ALLOWED (\(hex))"
        case .pinInvalid: return "CTAP2_ERR_PIN_INVALID (\(hex))"
        case .pinBlocked: return "CTAP2_ERR_PIN_BLOCKED (\(hex))"
        case .pinAuthInvalid: return "CTAP2_ERR_PIN_AUTH_INVALID (\(hex))"
        case .pinAuthBlocked: return "CTAP2_ERR_PIN_AUTH_BLOCKED (\(hex))"
        case .pinNotSet: return "CTAP2_ERR_PIN_NOT_SET (\(hex))"
        case .pinUvAuthTokenRequired: return "CTAP2_ERR_PUAT_REQUIRED (\(hex))"
        case .pinPolicyViolation: return "CTAP2_ERR_PIN_POLICY_VIOLATION (\(hex))"
        case .requestTooLarge: return "CTAP2_ERR_REQUEST_TOO_LARGE (\(hex))"
        case .uvBlocked: return "CTAP2_ERR_UV_BLOCKED (\(hex))"
        case .invalidSubcommand: return "CTAP2_ERR_INVALID_SUBCOMMAND (\(hex))"
        case .uvInvalid: return "CTAP2_ERR_UV_INVALID (\(hex))"
        case .unauthorizedPermission: return "CTAP2_ERR_UNAUTHORIZED_PERMISSION (\(hex))"
        case .other: return "CTAP1_ERR_OTHER (\(hex))"
        }
    }
}

/// CTAP2 command bytes (CTAP 2.1 §6). 0x41 is the credential-management
/// preview command that libfido2 1.12 always sends.
enum CTAPCommand: UInt8 {
    case makeCredential = 0x01
    case getAssertion = 0x02
    case getInfo = 0x04
    case clientPIN = 0x06
    case reset = 0x07
    case getNextAssertion = 0x08
    case credentialManagement = 0x0A
    case selection = 0x0B
    case credentialManagementPreview = 0x41
}
