/// The virtual card's Answer To Reset.
public enum AnswerToReset {
    /// A T=1 ATR shaped like a YubiKey 5's, with "passkey" as the issuer data:
    /// TS 3B, T0 FD (TA1…TD1 present, 13 historical bytes), TA1 13, TB1 00,
    /// TC1 00, TD1 81 (T=1 follows), TD2 31 (TA3, TB3 for T=1), TA3 FE (IFSC 254),
    /// TB3 15, historical bytes 80 73 C0 21 C0 57 "passkey", and the check byte.
    ///
    /// vpcd always reports T=1, and OpenSC would treat a `3B 8x 80 01` ATR as a
    /// contactless card, so this is a contact-card T=1 ATR.
    public static let `default`: [UInt8] = withCheckByte(
        [0x3B, 0xFD, 0x13, 0x00, 0x00, 0x81, 0x31, 0xFE, 0x15,
         0x80, 0x73, 0xC0, 0x21, 0xC0, 0x57] + Array("passkey".utf8))

    /// Appends TCK: the XOR of every byte from T0 to the last historical byte.
    static func withCheckByte(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [bytes.dropFirst().reduce(0, ^)]
    }
}
