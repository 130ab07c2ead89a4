import ISO7816

/// BER-TLV tags inside PIV command and response data (SP 800-73-4 Part 2).
public enum PIVTag {
    // GENERAL AUTHENTICATE: the dynamic authentication template and its items.
    public static let dynamicAuthenticationTemplate: TLVTag = 0x7C
    public static let witness: TLVTag = 0x80
    public static let challenge: TLVTag = 0x81
    public static let response: TLVTag = 0x82
    public static let exponentiation: TLVTag = 0x85
    // GENERATE ASYMMETRIC KEY PAIR: the control reference template and the answer.
    public static let controlReferenceTemplate: TLVTag = 0xAC
    public static let algorithm: TLVTag = 0x80
    public static let pinPolicy: TLVTag = 0xAA
    public static let touchPolicy: TLVTag = 0xAB
    public static let publicKeyTemplate: TLVTag = 0x7F49
    public static let ecPoint: TLVTag = 0x86
    // GET DATA and PUT DATA.
    public static let tagList: TLVTag = 0x5C
    public static let data: TLVTag = 0x53
}

/// Yubico GET METADATA: the tags of its answer and the values they carry.
public enum PIVMetadata {
    public enum Tag {
        public static let algorithm: TLVTag = 0x01
        public static let policy: TLVTag = 0x02
        public static let origin: TLVTag = 0x03
        public static let publicKey: TLVTag = 0x04
        public static let isDefault: TLVTag = 0x05
        public static let retries: TLVTag = 0x06
    }

    /// Tag 03's value for a key generated on the card (02: imported).
    public static let originGenerated: UInt8 = 0x01
    /// The "algorithm" PIN and PUK report in tag 01.
    public static let pinAlgorithm: UInt8 = 0xFF
}
