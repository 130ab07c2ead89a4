import FIDO
import VirtualAuthenticator

/// The software authenticator opened through libfido2's custom I/O, as the
/// agent opens `--device virtual`: every test that uses it meets the libfido2
/// code a USB key meets.
package struct SoftwareKey {
    package static let descriptor = DeviceDescriptor(path: "virtual", manufacturer: "test", product: "virtual", vendorId: 0, productId: 0,
                                                     isSoftware: true)
    package let hid: VirtualHIDDevice
    package let device: FIDODevice

    package init(_ configuration: VirtualAuthenticatorConfiguration = .init()) throws {
        hid = try VirtualHIDDevice(configuration: configuration)
        device = try FIDODevice.open(.packetDevice(hid, Self.descriptor))
    }

    /// A key without built-in UV whose PIN is `pin`, reopened so its GetInfo says so.
    package static func withPIN(_ pin: String, _ configuration: VirtualAuthenticatorConfiguration = .init(builtInUV: false)) throws -> SoftwareKey {
        let key = try SoftwareKey(configuration)
        try key.device.setPIN(pin)
        return try SoftwareKey(hid: key.hid)
    }

    private init(hid: VirtualHIDDevice) throws {
        self.hid = hid
        device = try FIDODevice.open(.packetDevice(hid, Self.descriptor))
    }

    /// Reopens the same authenticator (a new libfido2 handle, same "power cycle").
    package func reopened() throws -> FIDODevice {
        try FIDODevice.open(.packetDevice(hid, Self.descriptor))
    }
}
