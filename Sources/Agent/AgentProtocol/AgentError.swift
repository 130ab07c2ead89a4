/// An error the agent (or the in-process core) answers with. `kind` is the
/// stable, machine-readable part (`error.data.kind` on the socket); `message`
/// is one line for a person; `details` carries facts such as `triesLeft`.
/// Nothing here ever holds a secret.
public struct AgentError: Error, Sendable, Equatable, CustomStringConvertible {
    public var kind: AgentErrorKind
    public var message: String
    public var details: [String: JSONValue]

    public init(_ kind: AgentErrorKind, _ message: String, details: [String: JSONValue] = [:]) {
        self.kind = kind
        self.message = message
        self.details = details
    }

    public var description: String { message }

    /// The JSON-RPC error object for the socket.
    public var rpcError: RPCErrorObject {
        var data = details
        data["kind"] = .string(kind.rawValue)
        return RPCErrorObject(code: kind.code, message: message, data: .object(data))
    }

    /// Rebuilds the error a client received.
    public init(rpcError: RPCErrorObject) {
        let kind = rpcError.data?["kind"]?.string.flatMap(AgentErrorKind.init(rawValue:)) ?? .internal
        var details: [String: JSONValue] = [:]
        if case .object(let data)? = rpcError.data { details = data.filter { $0.key != "kind" } }
        self.init(kind, rpcError.message, details: details)
    }
}

/// Every kind of failure, with its JSON-RPC code and the CLI's exit status.
/// docs/PROTOCOL.md lists them; `passkey --help` prints the exit statuses.
public enum AgentErrorKind: String, Sendable, Codable, CaseIterable {
    // The standard JSON-RPC failures.
    case parseError = "parse_error"
    case invalidRequest = "invalid_request"
    case methodNotFound = "method_not_found"
    case invalidParams = "invalid_params"
    case `internal` = "internal"
    // Devices.
    case noDevice = "no_device"
    case deviceUnavailable = "device_unavailable"
    case deviceBusy = "device_busy"
    case unsupported = "unsupported"
    // The person at the key.
    case cancelled = "cancelled"
    case timeout = "timeout"
    case denied = "denied"
    case userSelectionRequired = "user_selection_required"
    // PINs and user verification.
    case pinRequired = "pin_required"
    case pinInvalid = "pin_invalid"
    case pinBlocked = "pin_blocked"
    case pinAuthBlocked = "pin_auth_blocked"
    case pinNotSet = "pin_not_set"
    case pinPolicy = "pin_policy"
    case uvFailed = "uv_failed"
    // Credentials and accounts.
    case alreadyRegistered = "already_registered"
    case noCredentials = "no_credentials"
    case notFound = "not_found"
    // The vault.
    case locked = "locked"
    case vaultError = "vault_error"
    // Smartcards.
    case pcscUnavailable = "pcsc_unavailable"
    case noCard = "no_card"
    case cardError = "card_error"
    // Remote services.
    case serverError = "server_error"
    case networkError = "network_error"
    // Input and limits.
    case invalidInput = "invalid_input"
    case tooManyConnections = "too_many_connections"
    case requestTooLarge = "request_too_large"

    /// The JSON-RPC error code: the standard ones for protocol failures, a
    /// fixed number per application kind (docs/PROTOCOL.md lists them; a
    /// test keeps the two in step). Never renumber; add new kinds at the end.
    public var code: Int {
        switch self {
        case .parseError: return RPCErrorObject.parseErrorCode
        case .invalidRequest, .requestTooLarge: return RPCErrorObject.invalidRequestCode
        case .methodNotFound: return RPCErrorObject.methodNotFoundCode
        case .invalidParams: return RPCErrorObject.invalidParamsCode
        case .internal: return RPCErrorObject.internalErrorCode
        case .noDevice: return 1005
        case .deviceUnavailable: return 1006
        case .deviceBusy: return 1007
        case .unsupported: return 1008
        case .cancelled: return 1009
        case .timeout: return 1010
        case .denied: return 1011
        case .userSelectionRequired: return 1012
        case .pinRequired: return 1013
        case .pinInvalid: return 1014
        case .pinBlocked: return 1015
        case .pinAuthBlocked: return 1016
        case .pinNotSet: return 1017
        case .pinPolicy: return 1018
        case .uvFailed: return 1019
        case .alreadyRegistered: return 1020
        case .noCredentials: return 1021
        case .notFound: return 1022
        case .locked: return 1023
        case .vaultError: return 1024
        case .pcscUnavailable: return 1025
        case .noCard: return 1026
        case .cardError: return 1027
        case .serverError: return 1028
        case .networkError: return 1029
        case .invalidInput: return 1030
        case .tooManyConnections: return 1031
        }
    }

    /// The exit status `passkey` ends with for this kind.
    public var exitStatus: Int32 {
        switch self {
        case .internal, .parseError, .invalidRequest, .methodNotFound, .invalidParams,
             .tooManyConnections, .requestTooLarge, .unsupported: return 1
        case .noDevice, .deviceUnavailable, .deviceBusy, .pcscUnavailable, .noCard, .cardError: return 3
        case .cancelled, .denied, .userSelectionRequired: return 4
        case .timeout: return 5
        case .pinRequired, .pinInvalid, .pinBlocked, .pinAuthBlocked, .pinNotSet, .pinPolicy, .uvFailed: return 6
        case .locked, .vaultError: return 7
        case .serverError: return 8
        case .networkError: return 9
        case .alreadyRegistered, .noCredentials, .notFound: return 10
        case .invalidInput: return 11
        }
    }
}
