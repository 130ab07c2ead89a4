import ISO7816
import PIVWire
import SmartCard

/// The PIV application on one card, selected and ready for commands.
///
/// Open it on any `CardChannel` — usually a `SmartCardConnection` from
/// `SmartCardContext.connect(reader:)`, or through `PIVCardLocator`. Each
/// operation runs in a PC/SC transaction; group several (verify the PIN, then
/// use the key) with `withTransaction` so no other program can come between.
///
/// Not thread-safe: use one session from one task at a time.
public final class PIVSession {
    /// The PIV AID; SELECT sends it whole and cards match any prefix.
    public static let applicationIdentifier = PIVApplication.identifier

    public let channel: any CardChannel
    public var readerName: String { channel.readerName }
    /// The Yubico firmware version, if the card answers GET VERSION.
    public private(set) var firmwareVersion: PIVFirmwareVersion?
    /// Whether the card answers Yubico GET METADATA (learned on first use).
    var metadataSupport: Bool?
    private var transactionDepth = 0

    /// Selects the PIV application and reads the firmware version if the card tells it.
    public init(channel: any CardChannel) throws(PIVError) {
        self.channel = channel
        try withTransaction { session throws(PIVError) in
            try session.selectApplication()
        }
    }

    /// Connects to the card in `reader` and opens its PIV application.
    public static func open(reader: String, context: SmartCardContext) throws(PIVError) -> PIVSession {
        let connection: SmartCardConnection
        do {
            connection = try context.connect(reader: reader)
        } catch {
            throw .smartCard(error)
        }
        return try PIVSession(channel: connection)
    }

    /// Runs `body` inside one PC/SC transaction: no other program's commands
    /// come between its commands. Nested calls share the outer transaction.
    public func withTransaction<T>(_ body: (PIVSession) throws(PIVError) -> T) throws(PIVError) -> T {
        if transactionDepth == 0 {
            let wasReset: Bool
            do {
                wasReset = try channel.beginTransaction()
            } catch {
                throw .smartCard(error)
            }
            if wasReset {
                // Another program reset the card: the application is no longer selected.
                do {
                    try selectApplication()
                } catch {
                    channel.endTransaction()
                    throw error
                }
            }
        }
        transactionDepth += 1
        defer {
            transactionDepth -= 1
            if transactionDepth == 0 { channel.endTransaction() }
        }
        return try body(self)
    }

    func selectApplication() throws(PIVError) {
        let response = try send(.select(applicationIdentifier: Self.applicationIdentifier))
        guard response.status.isSuccess else { throw .notPIVCard(reader: readerName) }
        firmwareVersion = nil
        let version = try send(CommandAPDU(ins: PIVInstruction.getVersion, p1: 0, p2: 0, expectedLength: 256))
        if version.status.isSuccess, version.data.count >= 3 {
            firmwareVersion = PIVFirmwareVersion(major: Int(version.data[0]), minor: Int(version.data[1]),
                                                 patch: Int(version.data[2]))
        }
    }

    /// Sends one command (with chaining) and returns the card's answer, whatever its status.
    func send(_ command: CommandAPDU) throws(PIVError) -> ResponseAPDU {
        do {
            return try channel.transmit(command)
        } catch {
            throw .smartCard(error)
        }
    }

    /// Sends `command` in a transaction and returns the data of a 9000 answer;
    /// any other status goes through `failure` (or becomes `.cardRejected`).
    func perform(_ command: CommandAPDU, operation: String,
                 failure: (StatusWord) -> PIVError? = { _ in nil }) throws(PIVError) -> [UInt8] {
        let response = try withTransaction { session throws(PIVError) in try session.send(command) }
        guard response.status.isSuccess else {
            throw failure(response.status) ?? .cardRejected(operation: operation, status: response.status)
        }
        return response.data
    }
}

/// A YubiKey-style firmware version (GET VERSION).
public struct PIVFirmwareVersion: Sendable, Equatable, Comparable, Codable, CustomStringConvertible {
    public let major: Int
    public let minor: Int
    public let patch: Int

    public init(major: Int, minor: Int, patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    public var description: String { "\(major).\(minor).\(patch)" }
}
