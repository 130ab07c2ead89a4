/// Instruction bytes of the PIV application and Yubico's extensions to it.
enum PIVInstruction {
    static let verify: UInt8 = 0x20
    static let changeReferenceData: UInt8 = 0x24
    static let resetRetryCounter: UInt8 = 0x2C
    static let generateAsymmetricKeyPair: UInt8 = 0x47
    static let generalAuthenticate: UInt8 = 0x87
    static let getData: UInt8 = 0xCB
    static let putData: UInt8 = 0xDB
    static let getMetadata: UInt8 = 0xF7
    static let getSerial: UInt8 = 0xF8
    static let getVersion: UInt8 = 0xFD
    static let setManagementKey: UInt8 = 0xFF
}

/// Key references that are not key slots.
enum PIVReference {
    static let pin: UInt8 = 0x80
    static let puk: UInt8 = 0x81
    static let managementKey: UInt8 = 0x9B
}
