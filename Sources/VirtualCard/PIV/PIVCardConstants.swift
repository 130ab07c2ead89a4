import ISO7816

/// The PIV vocabulary the virtual card speaks (NIST SP 800-73-4 Part 1/2 and
/// Yubico's extensions). The client side has its own copy in the PIV target:
/// the two are written independently on purpose, so the tests check one
/// against the other and against OpenSC and yubico-piv-tool.
enum PIVCard {
    /// A0 00 00 03 08 + PIX 00 00 10 00 01 00.
    static let applicationIdentifier: [UInt8] = [0xA0, 0x00, 0x00, 0x03, 0x08, 0x00, 0x00, 0x10, 0x00, 0x01, 0x00]

    enum Instruction {
        static let verify: UInt8 = 0x20
        static let changeReferenceData: UInt8 = 0x24
        static let resetRetryCounter: UInt8 = 0x2C
        static let generateAsymmetricKeyPair: UInt8 = 0x47
        static let generalAuthenticate: UInt8 = 0x87
        static let getData: UInt8 = 0xCB
        static let putData: UInt8 = 0xDB
        // Yubico extensions
        static let getMetadata: UInt8 = 0xF7
        static let getSerial: UInt8 = 0xF8
        static let reset: UInt8 = 0xFB
        static let getVersion: UInt8 = 0xFD
        static let setManagementKey: UInt8 = 0xFF
    }

    /// Key references (P2 of VERIFY, GENERAL AUTHENTICATE, GENERATE).
    enum Reference {
        static let pin: UInt8 = 0x80
        static let puk: UInt8 = 0x81
        static let managementKey: UInt8 = 0x9B
        static let authentication: UInt8 = 0x9A
        static let signature: UInt8 = 0x9C
        static let keyManagement: UInt8 = 0x9D
        static let cardAuthentication: UInt8 = 0x9E
        static let retired: ClosedRange<UInt8> = 0x82...0x95

        static let asymmetricKeySlots: Set<UInt8> =
            Set([authentication, signature, keyManagement, cardAuthentication]).union(retired)
    }

    enum Algorithm {
        static let tripleDES: UInt8 = 0x03
        static let aes128: UInt8 = 0x08
        static let aes192: UInt8 = 0x0A
        static let aes256: UInt8 = 0x0C
        static let eccP256: UInt8 = 0x11
    }

    /// Yubico PIN policies (tag AA of GENERATE); "default" means the slot's own rule.
    enum PINPolicy {
        static let `default`: UInt8 = 0
        static let never: UInt8 = 1
        static let once: UInt8 = 2
        static let always: UInt8 = 3
    }

    enum TouchPolicy {
        static let `default`: UInt8 = 0
        static let never: UInt8 = 1
    }

    enum Tag {
        static let dynamicAuthenticationTemplate: TLVTag = 0x7C
        static let witness: TLVTag = 0x80
        static let challenge: TLVTag = 0x81
        static let response: TLVTag = 0x82
        static let exponentiation: TLVTag = 0x85
        static let controlReferenceTemplate: TLVTag = 0xAC
        static let algorithm: TLVTag = 0x80
        static let pinPolicy: TLVTag = 0xAA
        static let touchPolicy: TLVTag = 0xAB
        static let publicKeyTemplate: TLVTag = 0x7F49
        static let ecPoint: TLVTag = 0x86
        static let tagList: TLVTag = 0x5C
        static let data: TLVTag = 0x53
    }

    enum Object {
        static let discovery: UInt32 = 0x7E
        static let cardCapabilityContainer: UInt32 = 0x5FC107
        static let chuid: UInt32 = 0x5FC102
        static let printedInformation: UInt32 = 0x5FC109
        static let facialImage: UInt32 = 0x5FC108
        static let fingerprints: UInt32 = 0x5FC103
        static let irisImages: UInt32 = 0x5FC121
        /// Objects that need the PIN before GET DATA (SP 800-73-4 Part 1 Table 3).
        static let pinProtected: Set<UInt32> = [printedInformation, facialImage, fingerprints, irisImages]
    }

    /// Yubico GET METADATA tags.
    enum Metadata {
        static let algorithm: TLVTag = 0x01
        static let policy: TLVTag = 0x02
        static let origin: TLVTag = 0x03
        static let publicKey: TLVTag = 0x04
        static let isDefault: TLVTag = 0x05
        static let retries: TLVTag = 0x06
        /// The "algorithm" PIN and PUK report.
        static let pinAlgorithm: UInt8 = 0xFF
        static let originGenerated: UInt8 = 0x01
    }

    /// The firmware version GET VERSION reports: 5.x, so that yubico-piv-tool
    /// and yubikey.rs accept the card and ask for the serial with GET SERIAL;
    /// 5.4 is the last series whose default management key is 3DES.
    static let version: [UInt8] = [5, 4, 3]

    static let defaultPIN: [UInt8] = Array("123456".utf8)
    static let defaultPUK: [UInt8] = Array("12345678".utf8)
    static let defaultManagementKey: [UInt8] = [
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
    ]
    static let defaultRetries = 3
}

