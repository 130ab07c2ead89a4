import ISO7816

/// The ISO 7816 side of CTAP over NFC (CTAP 2.1 §11.3), as a client sends it:
/// the FIDO applet's SELECT, NFCCTAP_MSG, the NFCCTAP_GETRESPONSE keepalive
/// poll and its cancel form, built from `ISO7816`'s `NFCCTAP` values (which
/// the virtual card's applet answers to).
enum NFCCTAPCommands {
    /// SELECT the FIDO applet (Le 00: the version string comes back).
    static let select = CommandAPDU.select(applicationIdentifier: NFCCTAP.applicationIdentifier)

    /// NFCCTAP_MSG carrying one CTAP message (command byte and CBOR). Longer
    /// than 255 bytes it goes out as a command chain (`CardChannel.transmit`).
    static func message(_ ctap: [UInt8]) -> CommandAPDU {
        CommandAPDU(cla: NFCCTAP.proprietaryClass, ins: NFCCTAP.messageInstruction, p1: NFCCTAP.clientSupportsGetResponse, p2: 0x00,
                    data: ctap, expectedLength: CommandAPDU.maximumShortExpectedLength)
    }

    /// NFCCTAP_GETRESPONSE: "are you done yet?" after a `9100` keepalive.
    static let poll = CommandAPDU(cla: NFCCTAP.proprietaryClass, ins: NFCCTAP.getResponseInstruction, p1: NFCCTAP.poll, p2: 0x00,
                                  expectedLength: CommandAPDU.maximumShortExpectedLength)

    /// NFCCTAP_GETRESPONSE with P1 = 0x11: stop the command in progress
    /// (python-fido2's form; a card that does not know it just answers as to a poll).
    static let cancel = CommandAPDU(cla: NFCCTAP.proprietaryClass, ins: NFCCTAP.getResponseInstruction, p1: NFCCTAP.cancel, p2: 0x00)

    /// `9100`: the card is still working; its one data byte says on what.
    static let keepaliveStatus = NFCCTAP.stillProcessing
}

/// What the FIDO applet's SELECT answer says it speaks.
enum FIDOAppletVersion: Sendable, Equatable {
    /// `U2F_V2`: U2F, and maybe CTAP2 (the client probes with GetInfo).
    case u2fV2
    /// `FIDO_2_0`: CTAP2 only.
    case fido2

    /// Reads the SELECT answer's data; nil for anything else (not a FIDO applet).
    init?(selectAnswer data: [UInt8]) {
        switch data {
        case NFCCTAP.selectAnswerU2F: self = .u2fV2
        case NFCCTAP.selectAnswerFIDO2: self = .fido2
        default: return nil
        }
    }

    /// CTAPHID capability flags for the INIT reply libfido2 expects, as its own
    /// NFC backend derives them (reference/protocols.md §3): CBOR (0x04), and
    /// NMSG (0x08, "no CTAPHID_MSG") when the applet speaks CTAP2 only.
    var capabilities: UInt8 {
        switch self {
        case .u2fV2: return 0x04
        case .fido2: return 0x04 | 0x08
        }
    }
}
