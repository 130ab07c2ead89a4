/// `agent.status`: is the agent alive, which version, what is it doing.
public enum AgentStatusMethod: AgentMethod {
    public static let name = "agent.status"
    public static let answerWait = AnswerWait.nothing
    public typealias Params = NoParams
    public typealias Result = AgentStatus
}

public struct AgentStatus: Codable, Sendable, Equatable {
    public var version: String
    public var protocolVersion: Int
    /// Seconds since the agent started (0 for the in-process core).
    public var uptimeSeconds: Double
    /// Requests being served right now, this one excluded.
    public var pendingRequests: Int
    /// The authenticators it can see (USB keys; the software one when configured).
    public var devices: [DeviceSummary]
    /// False when `passkey` ran the core itself because no agent answered.
    public var agentRunning: Bool
    public var pid: Int32
    /// The vault's lock state (added in protocol 1; absent from older agents).
    public var vault: VaultLockState?
    /// What in config.toml is ignored or broken, one line each with its line
    /// number (absent when nothing is; added in protocol 1).
    public var configProblems: [String]?
    /// Each setting in force and where it came from (absent from agents
    /// older than it; added in protocol 1).
    public var settings: [EffectiveSetting]?

    public init(version: String, protocolVersion: Int, uptimeSeconds: Double, pendingRequests: Int,
                devices: [DeviceSummary], agentRunning: Bool, pid: Int32, vault: VaultLockState? = nil,
                configProblems: [String]? = nil, settings: [EffectiveSetting]? = nil) {
        self.version = version
        self.protocolVersion = protocolVersion
        self.uptimeSeconds = uptimeSeconds
        self.pendingRequests = pendingRequests
        self.devices = devices
        self.agentRunning = agentRunning
        self.pid = pid
        self.vault = vault
        self.configProblems = configProblems
        self.settings = settings
    }
}

/// One setting of the agent as it is in force, and what decided it.
public struct EffectiveSetting: Codable, Sendable, Equatable {
    /// config.toml's `table.key` (`agent.idle-timeout`), or for what only the
    /// agent's command line sets, the flag (`--max-connections`).
    public var name: String
    /// The value in force, as config.toml or the flag would write it; absent
    /// when nothing set it and there is no default (`device.default`).
    public var value: String?
    /// `default`, `config.toml` or `flag`. A string, not an enumeration: a
    /// later agent may name another source, and older clients still show it.
    public var source: String

    public init(name: String, value: String?, source: String) {
        self.name = name
        self.value = value
        self.source = source
    }
}

public struct DeviceSummary: Codable, Sendable, Equatable {
    public var path: String
    public var product: String
    public var software: Bool

    public init(path: String, product: String, software: Bool) {
        self.path = path
        self.product = product
        self.software = software
    }
}

/// `devices.list`: every usable authenticator with what it can do.
public enum DevicesListMethod: AgentMethod {
    public static let name = "devices.list"
    public static let answerWait = AnswerWait.machine
    public typealias Params = DeviceChoice
    public typealias Result = DeviceList
}

public struct DeviceList: Codable, Sendable, Equatable {
    public var devices: [DeviceReport]

    public init(devices: [DeviceReport]) { self.devices = devices }
}

/// One authenticator as `passkey devices` shows it.
public struct DeviceReport: Codable, Sendable, Equatable {
    public var path: String
    public var manufacturer: String
    public var product: String
    public var vendorId: Int
    public var productId: Int
    /// True for the software authenticator: it is not hardware and protects nothing a key would.
    public var software: Bool
    /// How it is reached: `usb`, `nfc` (a key on a PC/SC reader, path `pcsc:<reader>`) or
    /// `virtual`; absent from agents older than NFC support.
    public var transport: String?
    public var versions: [String]
    public var aaguid: String
    public var options: [String: Bool]
    public var extensions: [String]
    public var algorithms: [Int]
    public var transports: [String]
    public var pinSet: Bool
    public var pinRetries: Int?
    public var uvRetries: Int?
    /// Why the key could not be read, when it could not.
    public var error: String?

    public init(path: String, manufacturer: String, product: String, vendorId: Int, productId: Int,
                software: Bool, transport: String? = nil, versions: [String] = [], aaguid: String = "", options: [String: Bool] = [:],
                extensions: [String] = [], algorithms: [Int] = [], transports: [String] = [],
                pinSet: Bool = false, pinRetries: Int? = nil, uvRetries: Int? = nil, error: String? = nil) {
        self.path = path
        self.manufacturer = manufacturer
        self.product = product
        self.vendorId = vendorId
        self.productId = productId
        self.software = software
        self.transport = transport
        self.versions = versions
        self.aaguid = aaguid
        self.options = options
        self.extensions = extensions
        self.algorithms = algorithms
        self.transports = transports
        self.pinSet = pinSet
        self.pinRetries = pinRetries
        self.uvRetries = uvRetries
        self.error = error
    }
}
