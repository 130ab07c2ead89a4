import ISO7816

/// The ISO 7816 face of a FIDO authenticator on a contactless card (CTAP 2.1
/// §11.3): what the FIDO2 applet answers to. Both python-fido2 and libfido2
/// speak it; the values are the spec's.
enum FIDO2CardWire {
    /// The FIDO application identifier (RID A0 00 00 06 47, PIX 2F 00 01).
    static let applicationIdentifier: [UInt8] = [0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01]

    /// The SELECT reply of a CTAP2-only authenticator. (`U2F_V2` would promise
    /// U2F's APDUs, which this applet does not implement.) libfido2 reads it
    /// as CBOR without U2F; python-fido2 then probes GetInfo.
    static let selectReply: [UInt8] = Array("FIDO_2_0".utf8)

    /// The class byte of the two NFCCTAP commands (CLA 0x90 for chained blocks).
    static let proprietaryClass: UInt8 = 0x80

    /// NFCCTAP_MSG: data = CTAP command byte ‖ CBOR; reply = CTAP status byte ‖ CBOR.
    static let message: UInt8 = 0x10
    /// NFCCTAP_GETRESPONSE: polls a request that answered 9100, or cancels it (P1 0x11).
    static let getResponse: UInt8 = 0x11

    /// NFCCTAP_MSG P1 bit: the client polls with NFCCTAP_GETRESPONSE, so the
    /// card may answer 9100 while the request waits for the user.
    static let clientSupportsGetResponse: UInt8 = 0x80
    /// NFCCTAP_GETRESPONSE P1: a poll.
    static let poll: UInt8 = 0x00
    /// NFCCTAP_GETRESPONSE P1: cancel the request (python-fido2's CTAP2 cancel).
    static let cancel: UInt8 = 0x11

    /// SW 9100: the request is still running; the one data byte is a
    /// keepalive status (1 PROCESSING, 2 UPNEEDED). Poll again.
    static let stillProcessing = StatusWord(0x9100)
}
