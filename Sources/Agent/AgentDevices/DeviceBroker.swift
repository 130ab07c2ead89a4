import AgentProtocol
import AgentRuntime
import Dispatch
import FIDO
import FoundationEssentials
import Locking
import Settings
import VirtualAuthenticator

/// Finds the authenticator a request means, opens it, and makes requests to
/// one device wait for each other in arrival order.
///
/// USB keys and keys on PC/SC readers (`pcsc:<reader>`) are opened anew for
/// each request (a key may have been unplugged, or taken off the reader, and
/// replaced meanwhile). The software authenticator is kept loaded per state
/// file for the life of the core, as a key stays plugged in.
package final class DeviceBroker: Sendable {
    private let config: LiveSettings
    private var settings: Settings { config.current }
    private let paths: AgentPaths
    private let environment: [String: String]
    private let virtualDevices = Locked<[String: VirtualHIDDevice]>([:])
    private let locks = Locked<[String: AsyncSerialLock]>([:])
    private let keyCache = Locked<(at: ContinuousClock.Instant, keys: [DeviceDescriptor])?>(nil)
    /// Readers whose key a request of ours holds open (with a PC/SC
    /// transaction): discovery lists them without a SELECT, which would wait
    /// for that request to end.
    private let readersInUse = Locked<[String: Int]>([:])

    package init(config: LiveSettings, paths: AgentPaths, environment: [String: String]) {
        self.config = config
        self.paths = paths
        self.environment = environment
    }

    /// What `choice` resolves to, without opening anything.
    package enum Resolved: Sendable {
        case virtual(statePath: String)
        case hidraw(String)
        /// A key in this PC/SC reader (`pcsc:<reader>`).
        case pcsc(reader: String)

        package var key: String {
            switch self {
            case .virtual(let path): return "virtual:" + path
            case .hidraw(let path): return path
            case .pcsc(let reader): return PCSCDiscovery.devicePath(reader: reader)
            }
        }
    }

    /// The device `choice` names, else `[device] default`, else the only
    /// connected key: USB keys first; only when there is none are the PC/SC
    /// readers asked (a SELECT per card), so a USB user's pcscd is left alone.
    package func resolve(_ choice: DeviceChoice?) async throws(AgentError) -> Resolved {
        let named = choice?.device ?? settings.device.defaultDevice
        if let named {
            if named == "virtual" { return .virtual(statePath: virtualStatePath(choice)) }
            if let reader = PCSCDiscovery.reader(inDevicePath: named) { return .pcsc(reader: reader) }
            guard named.hasPrefix("/") else {
                throw AgentError(.invalidInput, "--device takes `virtual`, a device path such as /dev/hidraw0, "
                                 + "or pcsc:READER for a key on a PC/SC (NFC) reader, not \"\(named)\"")
            }
            return .hidraw(named)
        }
        var keys = DeviceDiscovery.connectedKeys()
        if keys.isEmpty { keys = await pcscKeys() }
        switch keys.count {
        case 1: return PCSCDiscovery.reader(inDevicePath: keys[0].path).map { .pcsc(reader: $0) } ?? .hidraw(keys[0].path)
        case 0:
            throw AgentError(.noDevice, "no security key is connected; plug one in (or hold it on an NFC reader), "
                             + "or use --device virtual for the software authenticator")
        default:
            let list = keys.map { "\($0.path) (\($0.product))" }.joined(separator: ", ")
            throw AgentError(.noDevice, "\(keys.count) security keys are connected (\(list)); choose one with --device PATH")
        }
    }

    /// The keys on PC/SC readers, asked off the concurrency pool (each is a
    /// round trip through pcscd); readers a request of ours holds are listed as they are.
    package func pcscKeys() async -> [DeviceDescriptor] {
        let held = Set(readersInUse.withLock { $0.keys })
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: PCSCDiscovery.connectedKeys(assumingFIDO: held))
            }
        }
    }

    /// The connected keys, enumerated at most once a second: `agent.status`
    /// must stay cheap, and libfido2's enumeration walks udev.
    package func connectedKeysRecently() -> [DeviceDescriptor] {
        let now = ContinuousClock.now
        if let cached = keyCache.withLock({ $0 }), now - cached.at < .seconds(1) { return cached.keys }
        let keys = DeviceDiscovery.connectedKeys()
        keyCache.withLock { $0 = (now, keys) }
        return keys
    }

    package func virtualStatePath(_ choice: DeviceChoice?) -> String {
        choice?.virtualState ?? settings.device.virtualState ?? paths.virtualAuthenticatorState
    }

    /// Whether the software authenticator is configured as the default device.
    package var virtualIsDefault: Bool { settings.device.defaultDevice == "virtual" }

    /// config.toml's `[device] default`, if any.
    package var defaultDevice: String? { settings.device.defaultDevice }

    /// Opens the device and runs `body` with it, after the requests queued before.
    package func withDevice<T: Sendable>(_ choice: DeviceChoice?,
                                 _ body: @Sendable (FIDODevice) async throws -> T) async throws -> T {
        let resolved = try await resolve(choice)
        let lock = locks.withLock { locks in
            if let lock = locks[resolved.key] { return lock }
            let lock = AsyncSerialLock()
            locks[resolved.key] = lock
            return lock
        }
        return try await lock.withLock {
            guard case .pcsc(let reader) = resolved else { return try await body(try self.open(resolved)) }
            self.readersInUse.withLock { $0[reader, default: 0] += 1 }
            defer {
                self.readersInUse.withLock { held in
                    held[reader, default: 1] -= 1
                    if held[reader] == 0 { held[reader] = nil }
                }
            }
            return try await body(try self.open(resolved))
        }
    }

    /// `withDevice`, except that a software authenticator whose state file
    /// does not exist (and that no request has loaded) is read from a fresh
    /// one in memory that is not kept: looking at a device (`devices.list`)
    /// must not create its file.
    package func withDeviceAsItIs<T: Sendable>(_ choice: DeviceChoice?,
                                       _ body: @Sendable (FIDODevice) async throws -> T) async throws -> T {
        if case .virtual(let statePath) = try await resolve(choice),
           virtualDevices.withLock({ $0[statePath] == nil }), !FileManager.default.fileExists(atPath: statePath) {
            let configuration = try VirtualAuthenticatorConfiguration(statePath: nil).applyingEnvironment(environment)
            return try await body(try FIDODevice.open(.packetDevice(try VirtualHIDDevice(configuration: configuration),
                                                                    Self.virtualDescriptor)))
        }
        return try await withDevice(choice, body)
    }

    func open(_ resolved: Resolved) throws -> FIDODevice {
        switch resolved {
        case .hidraw(let path):
            return try FIDODevice.open(.hidraw(path: path))
        case .virtual(let statePath):
            let device = try virtualDevice(statePath: statePath)
            return try FIDODevice.open(.packetDevice(device, Self.virtualDescriptor))
        case .pcsc(let reader):
            return try FIDODevice.open(.pcsc(reader: reader))
        }
    }

    /// One authenticator instance per state file: it is built (its state
    /// loaded) under the lock, so two requests never race to load one file.
    private func virtualDevice(statePath: String) throws -> VirtualHIDDevice {
        try virtualDevices.withLock { (devices) throws(VirtualAuthenticatorError) -> VirtualHIDDevice in
            if let device = devices[statePath] { return device }
            let configuration = try VirtualAuthenticatorConfiguration(statePath: statePath).applyingEnvironment(environment)
            let device = try VirtualHIDDevice(configuration: configuration)
            devices[statePath] = device
            return device
        }
    }

    package static let virtualDescriptor = DeviceDescriptor(
        path: "virtual", manufacturer: "passkey-agent", product: "software authenticator (not hardware)",
        vendorId: 0, productId: 0, isSoftware: true)
}

