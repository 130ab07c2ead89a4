import Hexadecimal
import PIVWire

/// A PIV key slot (key reference), such as 9D "key management".
public struct PIVSlot: RawRepresentable, Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    public let rawValue: UInt8

    public init?(rawValue: UInt8) {
        guard Self.allKeySlots.contains(where: { $0.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    private init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let authentication = PIVSlot(PIVKeyReference.authentication)
    public static let signature = PIVSlot(PIVKeyReference.signature)
    public static let keyManagement = PIVSlot(PIVKeyReference.keyManagement)
    public static let cardAuthentication = PIVSlot(PIVKeyReference.cardAuthentication)

    /// The 20 retired key-management slots 82–95.
    public static let retired: [PIVSlot] = PIVKeyReference.retired.map { PIVSlot($0) }

    /// 9A, 9C, 9D, 9E, then 82–95.
    public static let allKeySlots: [PIVSlot] = [.authentication, .signature, .keyManagement, .cardAuthentication] + retired

    /// Parses "9d", "9D" or "0x9d".
    public init?(hex: String) {
        var text = hex.lowercased()
        if text.hasPrefix("0x") { text.removeFirst(2) }
        guard let value = UInt8(text, radix: 16), let slot = PIVSlot(rawValue: value) else { return nil }
        self = slot
    }

    /// Two lower-case hex digits, as the tools print slots ("9d").
    public var hex: String { Hexadecimal.encode([rawValue]) }

    /// The slot's role in SP 800-73-4.
    public var name: String {
        switch rawValue {
        case PIVKeyReference.authentication: return "PIV authentication"
        case PIVKeyReference.signature: return "digital signature"
        case PIVKeyReference.keyManagement: return "key management"
        case PIVKeyReference.cardAuthentication: return "card authentication"
        default: return "retired key management \(rawValue - PIVKeyReference.retired.lowerBound + 1)"
        }
    }

    /// The data object that holds the slot's X.509 certificate.
    public var certificateObject: PIVObjectID {
        switch rawValue {
        case PIVKeyReference.authentication: return .certificateAuthentication
        case PIVKeyReference.signature: return .certificateSignature
        case PIVKeyReference.keyManagement: return .certificateKeyManagement
        case PIVKeyReference.cardAuthentication: return .certificateCardAuthentication
        default:
            return PIVObjectID(rawValue: PIVObjectTag.firstRetiredCertificate
                                   + UInt32(rawValue - PIVKeyReference.retired.lowerBound))
        }
    }

    public var description: String { hex }

    public static func < (lhs: PIVSlot, rhs: PIVSlot) -> Bool {
        let order = allKeySlots.map(\.rawValue)
        return (order.firstIndex(of: lhs.rawValue) ?? 0) < (order.firstIndex(of: rhs.rawValue) ?? 0)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let slot = PIVSlot(hex: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not a PIV key slot")
        }
        self = slot
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
