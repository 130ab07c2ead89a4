/// One host handle on a `VirtualHIDDevice`, as one open file on a hidraw node:
/// what it reads are the answers to what it wrote, and closing it abandons
/// only its own transaction.
///
/// The agent opens a new libfido2 handle per request while the device lives
/// on; the handle of the previous request may be closed (its `FIDODevice`
/// freed on another thread) while the next request is in flight. A close
/// that reached the whole device would cancel that request and drop its
/// answer, and libfido2 would wait for it forever.
public final class VirtualHIDConnection: @unchecked Sendable {
    private let device: VirtualHIDDevice
    let id: UInt64

    init(device: VirtualHIDDevice, id: UInt64) {
        self.device = device
        self.id = id
    }

    deinit {
        device.close(connection: id, forget: true)
    }

    /// Sends one packet to the device (see `VirtualHIDDevice.write(_:)`).
    public func write(_ packet: [UInt8]) {
        device.write(packet, from: id)
    }

    /// The next packet answering this connection, or nil after
    /// `timeoutMilliseconds` (negative: no limit). With nothing queued and no
    /// request of this connection running or half-sent, no answer can come:
    /// nil at once, so a lost answer is an error for the host, not a wait.
    public func read(timeoutMilliseconds: Int) -> [UInt8]? {
        device.read(connection: id, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// The host closed its handle: cancels this connection's request in flight
    /// and drops its queued and half-received traffic. Later writes are
    /// ignored and reads return nil.
    public func close() {
        device.close(connection: id, forget: true)
    }
}
