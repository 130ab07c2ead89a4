import ISO7816

/// Instruction bytes (INS) of the PIV application (SP 800-73-4 Part 2 §3)
/// and of Yubico's extensions to it. The ISO 7816-4 ones are ISO7816's.
public enum PIVInstruction {
    public static let verify = APDUInstruction.verify
    public static let changeReferenceData = APDUInstruction.changeReferenceData
    public static let resetRetryCounter = APDUInstruction.resetRetryCounter
    public static let generateAsymmetricKeyPair = APDUInstruction.generateAsymmetricKeyPair
    public static let generalAuthenticate = APDUInstruction.generalAuthenticate
    public static let getData = APDUInstruction.getData
    public static let putData = APDUInstruction.putData
    // Yubico extensions.
    public static let getMetadata: UInt8 = 0xF7
    public static let getSerial: UInt8 = 0xF8
    public static let reset: UInt8 = 0xFB
    public static let getVersion: UInt8 = 0xFD
    public static let setManagementKey: UInt8 = 0xFF
}
