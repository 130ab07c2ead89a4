import CPCSC

/// A pcsc-lite return code (`LONG`), named.
///
/// The values are the stable PC/SC ABI (pcsclite.h); they are spelled out here
/// because the C headers define them as cast macros.
struct PCSCReturnCode: RawRepresentable, Hashable, Sendable {
    let rawValue: Int

    init(rawValue: Int) { self.rawValue = rawValue }
    init(_ value: LONG) { self.rawValue = Int(value) }

    static let success = PCSCReturnCode(rawValue: 0)
    static let internalError = PCSCReturnCode(rawValue: 0x8010_0001)
    static let cancelled = PCSCReturnCode(rawValue: 0x8010_0002)
    static let invalidHandle = PCSCReturnCode(rawValue: 0x8010_0003)
    static let insufficientBuffer = PCSCReturnCode(rawValue: 0x8010_0008)
    static let unknownReader = PCSCReturnCode(rawValue: 0x8010_0009)
    static let timeout = PCSCReturnCode(rawValue: 0x8010_000A)
    static let sharingViolation = PCSCReturnCode(rawValue: 0x8010_000B)
    static let noSmartcard = PCSCReturnCode(rawValue: 0x8010_000C)
    static let protocolMismatch = PCSCReturnCode(rawValue: 0x8010_000F)
    static let notReady = PCSCReturnCode(rawValue: 0x8010_0010)
    static let communicationError = PCSCReturnCode(rawValue: 0x8010_0013)
    static let notTransacted = PCSCReturnCode(rawValue: 0x8010_0016)
    static let readerUnavailable = PCSCReturnCode(rawValue: 0x8010_0017)
    static let noService = PCSCReturnCode(rawValue: 0x8010_001D)
    static let serviceStopped = PCSCReturnCode(rawValue: 0x8010_001E)
    static let noReadersAvailable = PCSCReturnCode(rawValue: 0x8010_002E)
    static let unresponsiveCard = PCSCReturnCode(rawValue: 0x8010_0066)
    static let unpoweredCard = PCSCReturnCode(rawValue: 0x8010_0067)
    static let resetCard = PCSCReturnCode(rawValue: 0x8010_0068)
    static let removedCard = PCSCReturnCode(rawValue: 0x8010_0069)

    /// pcsc-lite's own text for the code, e.g. "Command cancelled.".
    var text: String {
        guard let cString = pcsc_stringify_error(LONG(rawValue)) else { return "unknown error" }
        return String(cString: cString)
    }

    var hex: String { "0x" + String(UInt32(truncatingIfNeeded: rawValue), radix: 16, uppercase: true) }
}
