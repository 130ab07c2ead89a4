/// `key.info`: what one security key says about itself (authenticatorGetInfo)
/// and its retry counters. Opens the key; asks nothing of the person.
public enum KeyInfoMethod: AgentMethod {
    public static let name = "key.info"
    public static let answerWait = AnswerWait.person
    public typealias Result = KeyInfo

    public struct Params: Codable, Sendable, Equatable {
        public var device: DeviceChoice?

        public init(device: DeviceChoice? = nil) { self.device = device }
    }
}

/// `key.reset`: authenticatorReset — deletes every credential on the key and
/// its PIN. Keys allow it only within 10 s of power-up, with a touch.
public enum KeyResetMethod: AgentMethod {
    public static let name = "key.reset"
    public static let answerWait = AnswerWait.person
    public typealias Result = KeyResetReport

    public struct Params: Codable, Sendable, Equatable {
        public var device: DeviceChoice?

        public init(device: DeviceChoice? = nil) { self.device = device }
    }
}

public struct KeyResetReport: Codable, Sendable, Equatable {
    /// The device that was reset (`virtual`, or its path).
    public var path: String
    public var reset: Bool

    public init(path: String, reset: Bool) {
        self.path = path
        self.reset = reset
    }
}

/// One key as `passkey key info` shows it.
public struct KeyInfo: Codable, Sendable, Equatable {
    public var path: String
    public var manufacturer: String
    public var product: String
    /// True for the software authenticator: it is not hardware.
    public var software: Bool
    /// How the key is reached: `usb`, `nfc` (a PC/SC reader) or `virtual`.
    public var transport: String
    /// The AAGUID, 32 lowercase hex digits (as `devices.list` gives it).
    public var aaguid: String
    public var versions: [String]
    public var extensions: [String]
    public var options: [String: Bool]
    /// COSE algorithm identifiers, in the key's order of preference.
    public var algorithms: [Int]
    public var transports: [String]
    public var pinUvAuthProtocols: [Int]
    public var firmwareVersion: Int
    public var maxMessageSize: Int
    /// How many credentials an allow or exclude list may name at once.
    public var maxCredentialCountInList: Int
    public var maxCredentialIdLength: Int
    public var minPINLength: Int
    /// Discoverable credentials the key still has room for, when GetInfo says.
    public var remainingDiscoverableCredentials: Int?
    public var pinSet: Bool
    public var pinRetries: Int?
    public var uvRetries: Int?

    public init(path: String, manufacturer: String, product: String, software: Bool, transport: String, aaguid: String,
                versions: [String], extensions: [String], options: [String: Bool], algorithms: [Int],
                transports: [String], pinUvAuthProtocols: [Int], firmwareVersion: Int, maxMessageSize: Int,
                maxCredentialCountInList: Int, maxCredentialIdLength: Int, minPINLength: Int,
                remainingDiscoverableCredentials: Int?, pinSet: Bool, pinRetries: Int?, uvRetries: Int?) {
        self.path = path
        self.manufacturer = manufacturer
        self.product = product
        self.software = software
        self.transport = transport
        self.aaguid = aaguid
        self.versions = versions
        self.extensions = extensions
        self.options = options
        self.algorithms = algorithms
        self.transports = transports
        self.pinUvAuthProtocols = pinUvAuthProtocols
        self.firmwareVersion = firmwareVersion
        self.maxMessageSize = maxMessageSize
        self.maxCredentialCountInList = maxCredentialCountInList
        self.maxCredentialIdLength = maxCredentialIdLength
        self.minPINLength = minPINLength
        self.remainingDiscoverableCredentials = remainingDiscoverableCredentials
        self.pinSet = pinSet
        self.pinRetries = pinRetries
        self.uvRetries = uvRetries
    }
}
