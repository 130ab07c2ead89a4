import Crypto
import FIDO
import VirtualAuthenticator

/// A software authenticator opened through libfido2's custom I/O, as the
/// agent opens it: every test here runs the real libfido2 code a USB key meets.
struct VirtualKey {
    let hid: VirtualHIDDevice
    let device: FIDODevice

    init(_ configuration: VirtualAuthenticatorConfiguration = .init()) throws {
        hid = try VirtualHIDDevice(configuration: configuration)
        device = try FIDODevice.open(.packetDevice(hid, DeviceDescriptor(
            path: "virtual", manufacturer: "test", product: "virtual", vendorId: 0, productId: 0, isSoftware: true)))
    }

    /// Reopens the same authenticator (a new libfido2 handle, same "power cycle").
    func reopened() throws -> FIDODevice {
        try FIDODevice.open(.packetDevice(hid, DeviceDescriptor(
            path: "virtual", manufacturer: "test", product: "virtual", vendorId: 0, productId: 0, isSoftware: true)))
    }
}

func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}

func hash(_ text: String) -> [UInt8] { Array(SHA256.hash(data: Array(text.utf8))) }
