/// Algorithm identifiers (SP 800-78-4 Table 6-2, and Yubico's additions):
/// P1 of GENERAL AUTHENTICATE, tag 80 of GENERATE, tag 01 of GET METADATA.
public enum PIVAlgorithmID {
    public static let tripleDES: UInt8 = 0x03
    public static let rsa3072: UInt8 = 0x05
    public static let rsa1024: UInt8 = 0x06
    public static let rsa2048: UInt8 = 0x07
    public static let aes128: UInt8 = 0x08
    public static let aes192: UInt8 = 0x0A
    public static let aes256: UInt8 = 0x0C
    public static let eccP256: UInt8 = 0x11
    public static let eccP384: UInt8 = 0x14
    public static let rsa4096: UInt8 = 0x16
    public static let ed25519: UInt8 = 0xE0
    public static let x25519: UInt8 = 0xE1
}
