import Dispatch
import ISO7816
import SmartCard
import Locking

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
    /// trip per card, at most `probeDeadline` for a busy one. No pcscd or no reader is no key.
    ///
    /// Readers in `assumingFIDO` (the caller holds their key open, inside a
    /// transaction a SELECT would wait for) are listed while their card is there, unasked.
    public static func connectedKeys(assumingFIDO held: Set<String> = []) -> [DeviceDescriptor] {
        guard let context = try? SmartCardContext(), let readers = try? context.status() else { return [] }
        return readers.filter(\.cardPresent).compactMap { status in
            if held.contains(status.name) { return descriptor(reader: status.name) }
            guard !status.exclusive else { return nil }
            return versionWithinDeadline(in: status.name).map { _ in descriptor(reader: status.name) }
        }
    }

    /// How long a probe may wait for a card before its reader is left out as busy.
    static let probeDeadline: DispatchTimeInterval = .seconds(2)
    /// Readers whose probe still waits for the card; not asked again until it ends.
    private static let probing = Locked<Set<String>>([])

    /// pcsc-lite waits without limit in SCardConnect and SCardBeginTransaction
    /// while another handle holds a transaction on the card (OpenSC, a request
    /// waiting for a tap, our vault's PIV session), and nothing cancels that
    /// wait. So the probe runs on its own thread with its own context, and a
    /// card that does not answer by the deadline is busy: left out this time,
    /// its probe finishing in the background when the card is free (one at a time per reader).
    private static func versionWithinDeadline(in reader: String) -> FIDOAppletVersion? {
        guard probing.withLock({ $0.insert(reader).inserted }) else { return nil }
        let answer = ProbeAnswer()
        DispatchQueue.global().async {
            let found = (try? SmartCardContext()).flatMap { version(in: reader, context: $0) }
            answer.value.withLock { $0 = found }
            probing.withLock { _ = $0.remove(reader) }
            answer.done.signal()
        }
        guard answer.done.wait(timeout: .now() + probeDeadline) == .success else { return nil }
        return answer.value.withLock { $0 }
    }

    private final class ProbeAnswer: Sendable {
        let value = Locked<FIDOAppletVersion?>(nil)
        let done = DispatchSemaphore(value: 0)
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
