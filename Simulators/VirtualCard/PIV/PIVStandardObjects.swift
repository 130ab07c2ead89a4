import ISO7816
import PIVWire

/// The data objects a PIV card carries from the start.
enum PIVStandardObjects {
    /// A FASC-N for a non-federal issuer (agency code 9999, all other fields
    /// zero), BCD-encoded as SP 800-73-4 Part 1 §3.1.2 lays out; the same value
    /// YubiKey tools write.
    static let fascN: [UInt8] = [
        0xD4, 0xE7, 0x39, 0xDA, 0x73, 0x9C, 0xED, 0x39, 0xCE, 0x73, 0x9D, 0x83, 0x68,
        0x58, 0x21, 0x08, 0x42, 0x10, 0x84, 0x21, 0xC8, 0x42, 0x10, 0xC3, 0xEB,
    ]

    /// Card Holder Unique Identifier (5FC102): FASC-N, GUID, expiry, empty
    /// issuer signature and error-detection code.
    static func cardholderUniqueIdentifier(guid: [UInt8]) -> [UInt8] {
        BERTLV(tag: 0x30, value: fascN).encoded
            + BERTLV(tag: 0x34, value: guid).encoded
            + BERTLV(tag: 0x35, value: Array("20991231".utf8)).encoded
            + BERTLV(tag: 0x3E, value: []).encoded
            + BERTLV(tag: 0xFE, value: []).encoded
    }

    /// Card Capability Container (5FC107) with a 14-byte random card identifier
    /// after the GSC-IS RID, manufacturer FF and card type 02 (Java card).
    static func cardCapabilityContainer(cardIdentifier: [UInt8]) -> [UInt8] {
        let identifier: [UInt8] = [0xA0, 0x00, 0x00, 0x01, 0x16, 0xFF, 0x02] + cardIdentifier
        return BERTLV(tag: 0xF0, value: identifier).encoded
            + BERTLV(tag: 0xF1, value: [0x21]).encoded   // capability container version
            + BERTLV(tag: 0xF2, value: [0x21]).encoded   // capability grammar version
            + BERTLV(tag: 0xF3, value: []).encoded       // applications CardURL
            + BERTLV(tag: 0xF4, value: [0x00]).encoded   // PKCS#15
            + BERTLV(tag: 0xF5, value: [0x10]).encoded   // registered data model number
            + BERTLV(tag: 0xF6, value: []).encoded       // access control rule table
            + BERTLV(tag: 0xF7, value: []).encoded       // card APDUs
            + BERTLV(tag: 0xFA, value: []).encoded       // redirection tag
            + BERTLV(tag: 0xFB, value: []).encoded       // capability tuples
            + BERTLV(tag: 0xFC, value: []).encoded       // status tuples
            + BERTLV(tag: 0xFD, value: []).encoded       // next CCC
            + BERTLV(tag: 0xFE, value: []).encoded       // error detection code
    }

    /// Discovery object (7E): the PIV AID and the PIN usage policy "PIV PIN
    /// only". GET DATA returns it whole, not inside tag 53.
    static let discovery: [UInt8] = BERTLV(tag: 0x7E, children: [
        BERTLV(tag: 0x4F, value: PIVApplication.identifier),
        BERTLV(tag: 0x5F2F, value: [0x40, 0x00]),
    ]).encoded

    /// The SELECT response: application property template with the PIX and
    /// the coexistent tag allocation authority, as a YubiKey answers.
    static let applicationPropertyTemplate: [UInt8] = BERTLV(tag: 0x61, children: [
        BERTLV(tag: 0x4F, value: [0x00, 0x00, 0x10, 0x00, 0x01, 0x00]),
        BERTLV(tag: 0x79, children: [BERTLV(tag: 0x4F, value: [0xA0, 0x00, 0x00, 0x03, 0x08])]),
    ]).encoded
}
