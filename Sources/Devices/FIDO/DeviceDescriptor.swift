import CFIDO2

/// How an authenticator is reached, which decides what the person does for
/// presence: touch a USB key, tap (or hold) an NFC key on its reader.
public enum DeviceTransport: String, Sendable, Codable, Equatable {
    case usb
    /// A key in a PC/SC reader: NFC on a contactless reader (or a contact card with the FIDO applet).
    case nfc
    /// The software authenticator.
    case virtual
}

/// One authenticator `passkey` can use: a USB key libfido2 found, a key on a
/// PC/SC reader, or the software authenticator (always labelled as such).
public struct DeviceDescriptor: Sendable, Codable, Equatable {
    /// `/dev/hidrawN` for USB keys, `pcsc:<reader name>` for keys on a PC/SC
    /// reader, `virtual` for the software authenticator.
    public var path: String
    public var manufacturer: String
    public var product: String
    public var vendorId: Int
    public var productId: Int
    /// True for the software authenticator: it protects nothing a real key would.
    public var isSoftware: Bool
    public var transport: DeviceTransport

    /// `transport` defaults to `.virtual` for the software authenticator, else `.usb`.
    public init(path: String, manufacturer: String, product: String,
                vendorId: Int, productId: Int, isSoftware: Bool, transport: DeviceTransport? = nil) {
        self.path = path
        self.manufacturer = manufacturer
        self.product = product
        self.vendorId = vendorId
        self.productId = productId
        self.isSoftware = isSoftware
        self.transport = transport ?? (isSoftware ? .virtual : .usb)
    }
}

/// Finds the FIDO keys attached to this machine through libfido2's own
/// discovery (hidraw on Linux).
public enum DeviceDiscovery {
    /// The USB security keys libfido2 can see. Keys the user may not open
    /// (missing udev rules) are not listed by libfido2 at all.
    public static func connectedKeys(limit: Int = 64) -> [DeviceDescriptor] {
        FIDOLibrary.ensureInitialised()
        guard let list = fido_dev_info_new(limit) else { return [] }
        var list_: OpaquePointer? = list
        defer { fido_dev_info_free(&list_, limit) }
        var found = 0
        guard fido_dev_info_manifest(list, limit, &found) == FIDO_OK else { return [] }
        return (0..<found).compactMap { index in
            guard let entry = fido_dev_info_ptr(list, index) else { return nil }
            func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
            return DeviceDescriptor(
                path: text(fido_dev_info_path(entry)),
                manufacturer: text(fido_dev_info_manufacturer_string(entry)),
                product: text(fido_dev_info_product_string(entry)),
                vendorId: Int(UInt16(bitPattern: fido_dev_info_vendor(entry))),
                productId: Int(UInt16(bitPattern: fido_dev_info_product(entry))),
                isSoftware: false)
        }
    }
}
