/// The PIV card application (NIST SP 800-73-4 Part 1 §2.2) and the secrets a
/// new card ships with: what the client and the virtual card both need to
/// agree on before any command is sent.
public enum PIVApplication {
    /// A0 00 00 03 08 (NIST's RID) + PIX 00 00 10 00 01 00.
    public static let identifier: [UInt8] = [0xA0, 0x00, 0x00, 0x03, 0x08, 0x00, 0x00, 0x10, 0x00, 0x01, 0x00]
}

/// The factory defaults of PIV cards and of YubiKeys before 5.7.
public enum PIVFactoryDefaults {
    public static let pin: [UInt8] = Array("123456".utf8)
    public static let puk: [UInt8] = Array("12345678".utf8)
    /// A 3DES key: 010203040506070801020304050607080102030405060708.
    public static let managementKey: [UInt8] = [
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
    ]
}
