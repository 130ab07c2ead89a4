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
