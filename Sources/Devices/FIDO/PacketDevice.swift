import CFIDO2
import Synchronization

/// A device that speaks CTAPHID in 64-byte packets, reached through libfido2's
/// custom I/O hooks instead of hidraw. The virtual authenticator is one.
///
/// `write`, `read` and `close` are the device's one shared connection (see
/// `CTAPHIDPacketConnection`). A device that can tell hosts apart gives each
/// libfido2 `open` its own connection from `connect()`, as each open of a
/// hidraw node gets its own file: the agent opens a handle per request, and
/// the previous request's handle may be closed while the next one is in
/// flight, which on a shared connection abandons the next one's request.
public protocol CTAPHIDPacketDevice: AnyObject, Sendable {
    func write(_ packet: [UInt8])
    func read(timeoutMilliseconds: Int) -> [UInt8]?
    func close()
    /// A connection for one libfido2 handle; by default the shared one.
    func connect() -> any CTAPHIDPacketConnection
}

extension CTAPHIDPacketDevice {
    public func connect() -> any CTAPHIDPacketConnection { SharedPacketConnection(device: self) }
}

/// The device's own `write`, `read` and `close`, for devices with one connection.
private final class SharedPacketConnection: CTAPHIDPacketConnection {
    let device: any CTAPHIDPacketDevice

    init(device: any CTAPHIDPacketDevice) { self.device = device }

    func write(_ packet: [UInt8]) { device.write(packet) }
    func read(timeoutMilliseconds: Int) -> [UInt8]? { device.read(timeoutMilliseconds: timeoutMilliseconds) }
    func close() { device.close() }
}

/// One libfido2 handle's connection to a packet device.
///
/// `write` takes one 64-byte packet (the leading HID report-ID byte libfido2
/// writes is stripped here); `read` returns one 64-byte packet, or nil when
/// `timeoutMilliseconds` (negative: no limit) passes — a device that knows no
/// answer can come any more should return nil at once, so a lost answer is
/// an error instead of a wait to the end of the request's timeout. Both may be called from different threads:
/// libfido2 writes CTAPHID_CANCEL from the cancelling thread while another
/// thread waits in `read`.
public protocol CTAPHIDPacketConnection: AnyObject, Sendable {
    func write(_ packet: [UInt8])
    func read(timeoutMilliseconds: Int) -> [UInt8]?
    /// libfido2 closed its handle: drop this connection's half-done traffic
    /// (its request still running is abandoned, as when a key is unplugged
    /// from the host's view). Other connections are not touched.
    func close()
}

/// Devices reachable through the custom I/O hooks, by the path libfido2 is given.
///
/// libfido2's `open(path)` callback is a C function: it can only find the Swift
/// object through a table. Paths look like `virtual:N`; they never start with
/// `nfc:`, which libfido2 1.12 would hand to its kernel-NFC backend.
enum PacketDeviceRegistry {
    private static let table = Mutex<(next: Int, devices: [String: any CTAPHIDPacketDevice])>((0, [:]))

    static func register(_ device: any CTAPHIDPacketDevice) -> String {
        table.withLock { state in
            state.next += 1
            let path = "virtual:\(state.next)"
            state.devices[path] = device
            return path
        }
    }

    static func unregister(_ path: String) {
        _ = table.withLock { $0.devices.removeValue(forKey: path) }
    }

    static func device(at path: String) -> (any CTAPHIDPacketDevice)? {
        table.withLock { $0.devices[path] }
    }
}

/// The handle libfido2 keeps between `open` and `close` for a packet device.
final class PacketDeviceHandle {
    let connection: any CTAPHIDPacketConnection
    /// Told about every packet read, so KEEPALIVE(UPNEEDED) can become a "touch" prompt.
    let observer: PacketObserver

    init(connection: any CTAPHIDPacketConnection, observer: PacketObserver) {
        self.connection = connection
        self.observer = observer
    }
}

/// Watches the replies for CTAPHID_KEEPALIVE, whose status says the key is
/// waiting for the user (CTAP 2.1 §11.2.9.1.5).
final class PacketObserver: Sendable {
    private let onKeepalive: Mutex<(@Sendable (UInt8) -> Void)?> = Mutex(nil)

    func setHandler(_ handler: (@Sendable (UInt8) -> Void)?) {
        onKeepalive.withLock { $0 = handler }
    }

    func observe(_ packet: [UInt8]) {
        // Init packet layout: CID(4) | CMD(1) | BCNT(2) | data. KEEPALIVE is 0x3B | 0x80.
        guard packet.count >= 8, packet[4] == 0xBB else { return }
        let status = packet[7]
        onKeepalive.withLock { $0 }?(status)
    }
}

/// The C callbacks handed to `fido_dev_set_io_functions`.
enum PacketDeviceIO {
    /// Observers by path, so `open` can attach the right one to its handle.
    private static let observers = Mutex<[String: PacketObserver]>([:])

    static func setObserver(_ observer: PacketObserver, for path: String) {
        observers.withLock { $0[path] = observer }
    }

    static func removeObserver(for path: String) {
        _ = observers.withLock { $0.removeValue(forKey: path) }
    }

    static var functions: fido_dev_io_t {
        fido_dev_io_t(
            open: { path in
                guard let path, let name = String(validatingCString: path),
                      let device = PacketDeviceRegistry.device(at: name) else { return nil }
                let observer = PacketDeviceIO.observers.withLock { $0[name] } ?? PacketObserver()
                let handle = PacketDeviceHandle(connection: device.connect(), observer: observer)
                return Unmanaged.passRetained(handle).toOpaque()
            },
            close: { raw in
                guard let raw else { return }
                let handle = Unmanaged<PacketDeviceHandle>.fromOpaque(raw)
                handle.takeUnretainedValue().connection.close()
                handle.release()
            },
            read: { raw, buffer, length, milliseconds in
                // libfido2 1.12 with its own I/O reads exactly one 64-byte report;
                // `milliseconds` is what is left of its timeout (-1: none). Nil,
                // on timeout or when no answer can come, is -1: libfido2 then
                // fails with FIDO_ERR_RX instead of waiting on.
                guard let raw, let buffer, length >= 64 else { return -1 }
                let handle = Unmanaged<PacketDeviceHandle>.fromOpaque(raw).takeUnretainedValue()
                guard let packet = handle.connection.read(timeoutMilliseconds: Int(milliseconds)),
                      packet.count == 64 else { return -1 }
                handle.observer.observe(packet)
                packet.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: 64) }
                return 64
            },
            write: { raw, buffer, length in
                // …and writes 65 bytes: report ID 0, then one 64-byte packet.
                guard let raw, let buffer, length == 65 else { return -1 }
                let handle = Unmanaged<PacketDeviceHandle>.fromOpaque(raw).takeUnretainedValue()
                handle.connection.write(Array(UnsafeBufferPointer(start: buffer + 1, count: 64)))
                return 65
            })
    }
}
