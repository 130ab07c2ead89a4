import ISO7816

/// A PIV data object's tag, as GET DATA and PUT DATA name it (SP 800-73-4 Part 1 Table 3).
public struct PIVObjectID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let cardCapabilityContainer = PIVObjectID(rawValue: 0x5FC107)
    public static let cardholderUniqueIdentifier = PIVObjectID(rawValue: 0x5FC102)
    public static let certificateAuthentication = PIVObjectID(rawValue: 0x5FC105)
    public static let certificateSignature = PIVObjectID(rawValue: 0x5FC10A)
    public static let certificateKeyManagement = PIVObjectID(rawValue: 0x5FC10B)
    public static let certificateCardAuthentication = PIVObjectID(rawValue: 0x5FC101)
    public static let printedInformation = PIVObjectID(rawValue: 0x5FC109)
    public static let keyHistory = PIVObjectID(rawValue: 0x5FC10C)
    public static let discovery = PIVObjectID(rawValue: 0x7E)

    /// The tag's bytes, as they go into the `5C` tag list.
    public var bytes: [UInt8] { TLVTag(rawValue).bytes }

    public var description: String { Hexadecimal.encode(bytes).uppercased() }
}
