import CFIDO2
import PacketDevice
import Locking

/// Devices reachable through the custom I/O hooks, by the path libfido2 is
/// given: `virtual:N`.
let packetDeviceHandles = HandleRegistry<any CTAPHIDPacketDevice>(pathPrefix: "virtual:")

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
    private let onKeepalive: Locked<(@Sendable (UInt8) -> Void)?> = Locked(nil)

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
    private static let observers = Locked<[String: PacketObserver]>([:])

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
                      let device = packetDeviceHandles.value(at: name) else { return nil }
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
