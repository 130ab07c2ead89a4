/// Key references: P2 of VERIFY, CHANGE REFERENCE DATA, GENERAL AUTHENTICATE,
/// GENERATE and GET METADATA (SP 800-78-4 Table 6-1).
public enum PIVKeyReference {
    public static let pin: UInt8 = 0x80
    public static let puk: UInt8 = 0x81
    public static let managementKey: UInt8 = 0x9B

    // The asymmetric key slots.
    public static let authentication: UInt8 = 0x9A
    public static let signature: UInt8 = 0x9C
    public static let keyManagement: UInt8 = 0x9D
    public static let cardAuthentication: UInt8 = 0x9E
    /// The 20 retired key-management slots.
    public static let retired: ClosedRange<UInt8> = 0x82...0x95

    /// Every asymmetric key slot: 9A, 9C, 9D, 9E, then 82–95.
    public static let keySlots: [UInt8] = [authentication, signature, keyManagement, cardAuthentication] + Array(retired)
}
