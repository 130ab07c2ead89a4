/// Data object tags, as GET DATA and PUT DATA name them inside `5C`
/// (SP 800-73-4 Part 1 Table 3).
public enum PIVObjectTag {
    public static let cardCapabilityContainer: UInt32 = 0x5FC107
    public static let cardholderUniqueIdentifier: UInt32 = 0x5FC102
    public static let certificateAuthentication: UInt32 = 0x5FC105
    public static let certificateSignature: UInt32 = 0x5FC10A
    public static let certificateKeyManagement: UInt32 = 0x5FC10B
    public static let certificateCardAuthentication: UInt32 = 0x5FC101
    /// The certificate of retired slot 82; slot 82 + n has this + n.
    public static let firstRetiredCertificate: UInt32 = 0x5FC10D
    public static let printedInformation: UInt32 = 0x5FC109
    public static let facialImage: UInt32 = 0x5FC108
    public static let fingerprints: UInt32 = 0x5FC103
    public static let irisImages: UInt32 = 0x5FC121
    public static let keyHistory: UInt32 = 0x5FC10C
    /// The discovery object: answered as itself (7E …), not inside 53.
    public static let discovery: UInt32 = 0x7E
}
