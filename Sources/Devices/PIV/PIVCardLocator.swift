import Hexadecimal
import SmartCard

/// Something that tells one PIV card from another.
public enum PIVCardIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The Yubico serial number (GET SERIAL).
    case serialNumber(UInt32)
    /// The CHUID GUID (16 bytes, as lower-case hex).
    case chuidGUID(String)
    /// The public key in slot 9D (uncompressed point, as lower-case hex).
    case keyManagementKey(String)

    public var description: String {
        switch self {
        case .serialNumber(let serial): return "with serial number \(serial)"
        case .chuidGUID(let guid): return "with CHUID GUID \(guid)"
        case .keyManagementKey(let point): return "with key-management public key \(point.prefix(16))…"
        }
    }
}

/// Finds and opens the PIV card the caller means: by reader name, or by an
/// identity recorded earlier (so the vault finds its card in whatever reader it is).
public enum PIVCardLocator {
    /// Opens the PIV application of the card in `reader`.
    public static func open(reader: String, context: SmartCardContext) throws(PIVError) -> PIVSession {
        try PIVSession.open(reader: reader, context: context)
    }

    /// Opens the first card, in any reader, that matches `identity`.
    /// Throws `.cardNotFound` when no present card does.
    public static func open(identity: PIVCardIdentity, context: SmartCardContext) throws(PIVError) -> PIVSession {
        let readers: [ReaderStatus]
        do {
            readers = try context.status()
        } catch {
            throw .smartCard(error)
        }
        for reader in readers where reader.cardPresent {
            // A reader whose card is busy, gone or not PIV is simply not the one.
            guard let session = try? PIVSession.open(reader: reader.name, context: context) else { continue }
            if (try? matches(session, identity)) == true { return session }
        }
        throw .cardNotFound(identity.description)
    }

    /// Opens the card in `reader`, or — without a reader name — the only PIV
    /// card present. Several PIV cards and no name: `.severalCards`.
    public static func open(reader: String?, context: SmartCardContext) throws(PIVError) -> PIVSession {
        if let reader { return try open(reader: reader, context: context) }
        let readers: [ReaderStatus]
        do {
            readers = try context.status()
        } catch {
            throw .smartCard(error)
        }
        if readers.isEmpty { throw .smartCard(.noReaders) }
        var sessions: [PIVSession] = []
        for status in readers where status.cardPresent {
            if let session = try? PIVSession.open(reader: status.name, context: context) { sessions.append(session) }
        }
        guard let first = sessions.first else { throw .cardNotFound("in any reader") }
        guard sessions.count == 1 else { throw .severalCards(sessions.map(\.readerName)) }
        return first
    }

    /// Every identity the card can be recognised by later.
    public static func identities(of session: PIVSession) throws(PIVError) -> [PIVCardIdentity] {
        var found: [PIVCardIdentity] = []
        if let serial = try session.serialNumber() { found.append(.serialNumber(serial)) }
        if let guid = try session.chuidGUID() { found.append(.chuidGUID(Hexadecimal.encode(guid))) }
        if let key = try? session.publicKey(slot: .keyManagement) { found.append(.keyManagementKey(key.hex)) }
        return found
    }

    static func matches(_ session: PIVSession, _ identity: PIVCardIdentity) throws(PIVError) -> Bool {
        switch identity {
        case .serialNumber(let serial):
            return try session.serialNumber() == serial
        case .chuidGUID(let guid):
            return try session.chuidGUID().map { Hexadecimal.encode($0) } == guid.lowercased()
        case .keyManagementKey(let point):
            return try session.publicKey(slot: .keyManagement).hex == point.lowercased()
        }
    }
}
