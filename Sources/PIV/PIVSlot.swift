/// A PIV key slot (key reference), such as 9D "key management".
public struct PIVSlot: RawRepresentable, Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    public let rawValue: UInt8

    public init?(rawValue: UInt8) {
        guard Self.allKeySlots.contains(where: { $0.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    private init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let authentication = PIVSlot(0x9A)
    public static let signature = PIVSlot(0x9C)
    public static let keyManagement = PIVSlot(0x9D)
    public static let cardAuthentication = PIVSlot(0x9E)

    /// The 20 retired key-management slots 82–95.
    public static let retired: [PIVSlot] = (0x82...0x95).map { PIVSlot(UInt8($0)) }

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
    public var hex: String {
        let digits = String(rawValue, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }

    /// The slot's role in SP 800-73-4.
    public var name: String {
        switch rawValue {
        case 0x9A: return "PIV authentication"
        case 0x9C: return "digital signature"
        case 0x9D: return "key management"
        case 0x9E: return "card authentication"
        default: return "retired key management \(rawValue - 0x81)"
        }
    }

    /// The data object that holds the slot's X.509 certificate.
    public var certificateObject: PIVObjectID {
        switch rawValue {
        case 0x9A: return .certificateAuthentication
        case 0x9C: return .certificateSignature
        case 0x9D: return .certificateKeyManagement
        case 0x9E: return .certificateCardAuthentication
        default: return PIVObjectID(rawValue: 0x5FC10D + UInt32(rawValue - 0x82))
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
