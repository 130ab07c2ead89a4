/// The ISO 7816 face of a FIDO authenticator on a contactless card (CTAP 2.1
/// §11.3), shared by the client (`FIDO`'s PC/SC transport) and the virtual
/// card's FIDO2 applet, so both read the same values. The values are the spec's;
/// libfido2 and python-fido2 speak them.
public enum NFCCTAP {
    /// The FIDO application identifier (RID A0 00 00 06 47, PIX 2F 00 01).
    public static let applicationIdentifier: [UInt8] = [0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01]

    /// SELECT answer of an applet that speaks U2F, and maybe CTAP2 (the client
    /// probes with GetInfo).
    public static let selectAnswerU2F: [UInt8] = Array("U2F_V2".utf8)
    /// SELECT answer of a CTAP2-only applet.
    public static let selectAnswerFIDO2: [UInt8] = Array("FIDO_2_0".utf8)

    /// The class byte of the two NFCCTAP commands (CLA 0x90 for chained blocks).
    public static let proprietaryClass: UInt8 = 0x80

    /// NFCCTAP_MSG: data = CTAP command byte ‖ CBOR; reply = CTAP status byte ‖ CBOR.
    public static let messageInstruction: UInt8 = 0x10
    /// NFCCTAP_GETRESPONSE: polls a request that answered 9100, or cancels it (P1 0x11).
    public static let getResponseInstruction: UInt8 = 0x11

    /// NFCCTAP_MSG P1 bit: the client polls with NFCCTAP_GETRESPONSE, so the
    /// card may answer 9100 while the request waits for the user.
    public static let clientSupportsGetResponse: UInt8 = 0x80
    /// NFCCTAP_GETRESPONSE P1: a poll.
    public static let poll: UInt8 = 0x00
    /// NFCCTAP_GETRESPONSE P1: cancel the request (python-fido2's CTAP2 cancel;
    /// a card that does not know it answers as to a poll).
    public static let cancel: UInt8 = 0x11

    /// SW 9100: the request is still running; the one data byte is a
    /// keepalive status (1 PROCESSING, 2 UPNEEDED). Poll again.
    public static let stillProcessing = StatusWord(0x9100)
}
