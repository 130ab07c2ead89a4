/// Instruction bytes (INS) of ISO/IEC 7816-4 commands used by the clients and
/// the virtual card. Application-specific instructions live with their
/// application.
public enum APDUInstruction {
    public static let verify: UInt8 = 0x20
    public static let changeReferenceData: UInt8 = 0x24
    public static let resetRetryCounter: UInt8 = 0x2C
    public static let generateAsymmetricKeyPair: UInt8 = 0x47
    public static let generalAuthenticate: UInt8 = 0x87
    public static let select: UInt8 = 0xA4
    public static let getResponse: UInt8 = 0xC0
    public static let getData: UInt8 = 0xCB
    public static let putData: UInt8 = 0xDB
}

/// Bits of the class byte (CLA).
public enum APDUClass {
    /// Command chaining: more blocks of this command follow (ISO/IEC 7816-4 §5.4.1).
    public static let chainingBit: UInt8 = 0x10
}
