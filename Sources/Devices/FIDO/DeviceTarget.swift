import CFIDO2
import PacketDevice
import SmartCard

/// Which authenticator to open.
public enum DeviceTarget: Sendable {
    /// A USB key at a hidraw path, through libfido2's own I/O.
    case hidraw(path: String)
    /// A CTAPHID device reached through libfido2's custom I/O hooks
    /// (`fido_dev_new` → `fido_dev_set_io_functions` → `fido_dev_open`).
    case packetDevice(any CTAPHIDPacketDevice, DeviceDescriptor)
    /// A FIDO key in a PC/SC reader (`pcsc:<reader>`; an NFC key on a contactless
    /// reader), through libfido2's transport functions and pcsc-lite.
    case pcsc(reader: String)
    /// The FIDO applet behind any card channel: what `.pcsc` opens, or a card
    /// in this process. `polling` paces the keepalive polls.
    case cardChannel(any CardChannel & Sendable, DeviceDescriptor, polling: KeepalivePolling = .standard)
}

/// How one open libfido2 handle reaches its device: what `FIDODevice` keeps
/// to watch keepalives, explain failures and clean up after `fido_dev_close`.
struct DeviceLink {
    /// The name libfido2's `open` callback is given (`/dev/hidrawN`, `virtual:N`, `pcsc-handle:N`).
    var path: String
    var descriptor: DeviceDescriptor
    /// Packet devices: sees CTAPHID KEEPALIVE packets.
    var observer: PacketObserver?
    /// Card channels: the selected FIDO applet.
    var applet: FIDOAppletSession?

    /// Sets up `handle` for `target`: the I/O (and transport) functions, and
    /// the table entry its `open` callback looks up.
    static func prepare(_ target: DeviceTarget, handle: OpaquePointer) throws(FIDOError) -> DeviceLink {
        switch target {
        case .hidraw(let path):
            let descriptor = DeviceDiscovery.connectedKeys().first { $0.path == path }
                ?? DeviceDescriptor(path: path, manufacturer: "", product: "", vendorId: 0, productId: 0, isSoftware: false)
            return DeviceLink(path: path, descriptor: descriptor)
        case .packetDevice(let device, let descriptor):
            let path = packetDeviceHandles.register(device)
            let observer = PacketObserver()
            PacketDeviceIO.setObserver(observer, for: path)
            let link = DeviceLink(path: path, descriptor: descriptor, observer: observer)
            var io = PacketDeviceIO.functions
            let status = fido_dev_set_io_functions(handle, &io)
            guard status == FIDO_OK else {
                link.release()
                throw FIDOError(code: status, operation: "setting up the software authenticator")
            }
            return link
        case .pcsc(let reader):
            let applet = try FIDOAppletSession.open(reader: reader)
            return try cardLink(applet, descriptor: PCSCDiscovery.descriptor(reader: reader),
                                handle: handle)
        case .cardChannel(let channel, let descriptor, let polling):
            let applet = try FIDOAppletSession(channel: channel, reader: channel.readerName, polling: polling)
            return try cardLink(applet, descriptor: descriptor, handle: handle)
        }
    }

    private static func cardLink(_ applet: FIDOAppletSession, descriptor: DeviceDescriptor,
                                 handle: OpaquePointer) throws(FIDOError) -> DeviceLink {
        let link = DeviceLink(path: fidoAppletHandles.register(applet), descriptor: descriptor, applet: applet)
        var io = PCSCTransportFunctions.io
        var transport = PCSCTransportFunctions.transport
        var status = fido_dev_set_io_functions(handle, &io)
        if status == FIDO_OK { status = fido_dev_set_transport_functions(handle, &transport) }
        guard status == FIDO_OK else {
            link.release()
            throw FIDOError(code: status, operation: "setting up the PC/SC transport")
        }
        return link
    }

    /// Drops the table entries and the card session (after `fido_dev_close`, or when opening failed).
    func release() {
        if observer != nil {
            packetDeviceHandles.unregister(path)
            PacketDeviceIO.removeObserver(for: path)
        }
        if let applet {
            fidoAppletHandles.unregister(path)
            applet.close()
        }
    }

    /// The error to report for a libfido2 failure on this link: a card that
    /// left the reader says so, instead of libfido2's "rx error".
    func explained(_ error: FIDOError) -> FIDOError {
        guard let failure = applet?.lastFailure else { return error }
        switch error {
        case .deviceIO, .deviceUnavailable, .other:
            if failure.isCardGone {
                return .deviceUnavailable("the security key left the reader \"\(applet?.reader ?? "")\" during the request "
                                          + "(\(failure)): hold it on the reader and try again")
            }
            if failure == .timedOut { return .userActionTimeout }
            return .deviceIO(failure.description)
        default:
            return error
        }
    }
}
