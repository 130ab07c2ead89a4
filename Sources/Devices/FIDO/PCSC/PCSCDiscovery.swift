import ISO7816
import SmartCard

/// FIDO keys in PC/SC readers: every reader holding a card whose FIDO applet
/// answers SELECT. Users name them `pcsc:<reader name>`.
public enum PCSCDiscovery {
    public static let pathPrefix = "pcsc:"

    /// The reader a device name such as `pcsc:ACS ACR122U 00 00` means; nil for other names.
    public static func reader(inDevicePath path: String) -> String? {
        guard path.hasPrefix(pathPrefix) else { return nil }
        let reader = String(path.dropFirst(pathPrefix.count))
        return reader.isEmpty ? nil : reader
    }

    public static func devicePath(reader: String) -> String { pathPrefix + reader }

    /// Asks each reader with a card in it (not held exclusively by another
    /// program) whether the card has a FIDO applet. Blocking: a SELECT round
    /// trip per card. No pcscd or no reader is no key.
    ///
    /// Readers in `assumingFIDO` (the caller holds their key open, inside a
    /// transaction a SELECT would wait for) are listed while their card is there, unasked.
    public static func connectedKeys(assumingFIDO held: Set<String> = []) -> [DeviceDescriptor] {
        guard let context = try? SmartCardContext(), let readers = try? context.status() else { return [] }
        return readers.filter(\.cardPresent).compactMap { status in
            if held.contains(status.name) { return descriptor(reader: status.name) }
            guard !status.exclusive else { return nil }
            return version(in: status.name, context: context).map { _ in descriptor(reader: status.name) }
        }
    }

    /// SELECTs the FIDO applet inside a transaction, so that no other
    /// program's APDUs come between, and leaves the card as it was.
    private static func version(in reader: String, context: SmartCardContext) -> FIDOAppletVersion? {
        guard let connection = try? context.connect(reader: reader) else { return nil }
        defer { connection.disconnect() }
        guard (try? connection.beginTransaction()) != nil else { return nil }
        defer { connection.endTransaction() }
        guard let answer = try? connection.transmit(NFCCTAPCommands.select), answer.status.isSuccess else { return nil }
        return FIDOAppletVersion(selectAnswer: answer.data)
    }

    /// How a key on `reader` is described (its `pcsc:` path, transport `.nfc`).
    public static func descriptor(reader: String) -> DeviceDescriptor {
        DeviceDescriptor(path: devicePath(reader: reader), manufacturer: "",
                         product: "security key on \(reader)",
                         vendorId: 0, productId: 0, isSoftware: false, transport: .nfc)
    }
}
