import Hexadecimal

/// The two status bytes SW1 SW2 that end every response APDU (ISO/IEC 7816-4 §5.6).
///
/// A typed value rather than a bare `UInt16` so that the families that carry a
/// number — `61xx` (more data), `6Cxx` (resend with this Le) and `63Cx`
/// (verification failed, x tries left) — are read in one place.
public struct StatusWord: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }
    public init(sw1: UInt8, sw2: UInt8) { self.rawValue = UInt16(sw1) << 8 | UInt16(sw2) }

    public var sw1: UInt8 { UInt8(rawValue >> 8) }
    public var sw2: UInt8 { UInt8(rawValue & 0xFF) }
    /// The two bytes as they travel at the end of a response.
    public var bytes: [UInt8] { [sw1, sw2] }

    // MARK: Normal processing
    public static let success = StatusWord(0x9000)
    /// `61xx` with xx = 0 (256 or more bytes wait); use `moreData(_:)` for a count.
    public static let moreDataBase = StatusWord(0x6100)

    // MARK: Warnings and execution errors
    public static let verificationFailed = StatusWord(0x6300)
    public static let memoryFailure = StatusWord(0x6581)

    // MARK: Checking errors
    public static let wrongLength = StatusWord(0x6700)
    public static let secureMessagingNotSupported = StatusWord(0x6882)
    public static let lastCommandOfChainExpected = StatusWord(0x6883)
    public static let commandChainingNotSupported = StatusWord(0x6884)
    public static let commandIncompatible = StatusWord(0x6981)
    public static let securityStatusNotSatisfied = StatusWord(0x6982)
    public static let authenticationMethodBlocked = StatusWord(0x6983)
    public static let referenceDataNotUsable = StatusWord(0x6984)
    public static let conditionsOfUseNotSatisfied = StatusWord(0x6985)
    public static let commandNotAllowed = StatusWord(0x6986)
    public static let incorrectData = StatusWord(0x6A80)
    public static let functionNotSupported = StatusWord(0x6A81)
    public static let fileNotFound = StatusWord(0x6A82)
    public static let notEnoughMemory = StatusWord(0x6A84)
    public static let incorrectP1P2 = StatusWord(0x6A86)
    public static let referencedDataNotFound = StatusWord(0x6A88)
    public static let wrongP1P2 = StatusWord(0x6B00)
    public static let instructionNotSupported = StatusWord(0x6D00)
    public static let classNotSupported = StatusWord(0x6E00)
    public static let noPreciseDiagnosis = StatusWord(0x6F00)

    /// `61xx`: `count` more response bytes wait for GET RESPONSE (256 and above encode as `6100`).
    public static func moreData(_ count: Int) -> StatusWord {
        StatusWord(sw1: 0x61, sw2: count >= 256 ? 0 : UInt8(max(count, 0)))
    }

    /// `6Cxx`: wrong Le; resend the same command with Le = `length`.
    public static func wrongExpectedLength(exact length: Int) -> StatusWord {
        StatusWord(sw1: 0x6C, sw2: length >= 256 ? 0 : UInt8(max(length, 0)))
    }

    /// `63Cx`: verification failed, `triesLeft` attempts remain (clamped to 0…15).
    public static func verificationFailed(triesLeft: Int) -> StatusWord {
        StatusWord(sw1: 0x63, sw2: 0xC0 | UInt8(min(max(triesLeft, 0), 15)))
    }

    // MARK: Reading the numeric families

    public var isSuccess: Bool { rawValue == 0x9000 }

    /// For `61xx`: how many bytes GET RESPONSE may fetch (xx = 00 means 256).
    public var moreDataAvailable: Int? {
        guard sw1 == 0x61 else { return nil }
        return sw2 == 0 ? 256 : Int(sw2)
    }

    /// For `6Cxx`: the exact Le to resend the command with (xx = 00 means 256).
    public var exactExpectedLength: Int? {
        guard sw1 == 0x6C else { return nil }
        return sw2 == 0 ? 256 : Int(sw2)
    }

    /// For `63Cx`: the retries left on the referenced PIN or key.
    public var triesLeft: Int? {
        guard sw1 == 0x63, sw2 & 0xF0 == 0xC0 else { return nil }
        return Int(sw2 & 0x0F)
    }

    /// What the status word means, in words a log reader understands.
    public var meaning: String {
        if isSuccess { return "success" }
        if let n = moreDataAvailable { return "\(n) more response byte(s) available" }
        if let n = exactExpectedLength { return "wrong Le, the card has \(n) byte(s)" }
        if let n = triesLeft { return "verification failed, \(n) tries left" }
        switch rawValue {
        case 0x6281: return "part of the returned data may be corrupted"
        case 0x6282: return "end of data reached before Le bytes"
        case 0x6300: return "verification failed"
        case 0x6581: return "memory failure"
        case 0x6700: return "wrong length"
        case 0x6882: return "secure messaging not supported"
        case 0x6883: return "last command of the chain expected"
        case 0x6884: return "command chaining not supported"
        case 0x6981: return "command incompatible with file structure"
        case 0x6982: return "security status not satisfied"
        case 0x6983: return "authentication method blocked"
        case 0x6984: return "reference data not usable"
        case 0x6985: return "conditions of use not satisfied"
        case 0x6986: return "command not allowed"
        case 0x6A80: return "incorrect parameters in the data field"
        case 0x6A81: return "function not supported"
        case 0x6A82: return "file or application not found"
        case 0x6A84: return "not enough memory"
        case 0x6A86: return "incorrect parameters P1-P2"
        case 0x6A88: return "referenced data not found"
        case 0x6B00: return "wrong parameters P1-P2"
        case 0x6D00: return "instruction not supported"
        case 0x6E00: return "class not supported"
        case 0x6F00: return "no precise diagnosis"
        default: return "unknown status"
        }
    }

    /// `6982 (security status not satisfied)`.
    public var description: String {
        "\(Hexadecimal.encode(bytes).uppercased()) (\(meaning))"
    }
}
