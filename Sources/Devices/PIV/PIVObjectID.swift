import Hexadecimal
import ISO7816
import PIVWire

/// A PIV data object's tag, as GET DATA and PUT DATA name it (SP 800-73-4 Part 1 Table 3).
public struct PIVObjectID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let cardCapabilityContainer = PIVObjectID(rawValue: PIVObjectTag.cardCapabilityContainer)
    public static let cardholderUniqueIdentifier = PIVObjectID(rawValue: PIVObjectTag.cardholderUniqueIdentifier)
    public static let certificateAuthentication = PIVObjectID(rawValue: PIVObjectTag.certificateAuthentication)
    public static let certificateSignature = PIVObjectID(rawValue: PIVObjectTag.certificateSignature)
    public static let certificateKeyManagement = PIVObjectID(rawValue: PIVObjectTag.certificateKeyManagement)
    public static let certificateCardAuthentication = PIVObjectID(rawValue: PIVObjectTag.certificateCardAuthentication)
    public static let printedInformation = PIVObjectID(rawValue: PIVObjectTag.printedInformation)
    public static let keyHistory = PIVObjectID(rawValue: PIVObjectTag.keyHistory)
    public static let discovery = PIVObjectID(rawValue: PIVObjectTag.discovery)

    /// The tag's bytes, as they go into the `5C` tag list.
    public var bytes: [UInt8] { TLVTag(rawValue).bytes }

    public var description: String { Hexadecimal.encode(bytes).uppercased() }
}
