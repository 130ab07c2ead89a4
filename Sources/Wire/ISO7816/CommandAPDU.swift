import Hexadecimal

/// A command APDU (ISO/IEC 7816-4 §5.1): header, optional data, optional
/// expected response length.
///
/// The value is the same whether it travels in short or extended form; the
/// form is chosen when encoding. `expectedLength` counts bytes, so `256`
/// encodes as the short Le `00` and `65536` as the extended Le `0000`.
public struct CommandAPDU: Sendable, Equatable, CustomStringConvertible {
    public static let maximumShortData = 255
    public static let maximumShortExpectedLength = 256
    public static let maximumExtendedData = 65535
    public static let maximumExtendedExpectedLength = 65536

    public var cla: UInt8
    public var ins: UInt8
    public var p1: UInt8
    public var p2: UInt8
    /// The command data field (Lc counts it); empty when absent.
    public var data: [UInt8]
    /// The most response bytes the client accepts (Le), or nil when the
    /// command expects no response data.
    public var expectedLength: Int?

    public init(cla: UInt8 = 0x00, ins: UInt8, p1: UInt8, p2: UInt8,
                data: [UInt8] = [], expectedLength: Int? = nil) {
        self.cla = cla
        self.ins = ins
        self.p1 = p1
        self.p2 = p2
        self.data = data
        self.expectedLength = expectedLength
    }

    /// True when CLA says more blocks of this command follow (command chaining).
    public var isChainedBlock: Bool { cla & APDUClass.chainingBit != 0 }

    /// True when the command does not fit the short form.
    public var needsExtendedLength: Bool {
        data.count > Self.maximumShortData
            || (expectedLength ?? 0) > Self.maximumShortExpectedLength
    }

    /// The wire bytes: short form unless the command needs (or `extended`
    /// asks for) the extended form.
    public func encoded(extended: Bool = false) throws(ISO7816Error) -> [UInt8] {
        if let le = expectedLength, le < 1 || le > Self.maximumExtendedExpectedLength {
            throw .expectedLengthOutOfRange(le)
        }
        if data.count > Self.maximumExtendedData {
            throw .commandDataTooLong(data.count, limit: Self.maximumExtendedData)
        }
        var bytes: [UInt8] = [cla, ins, p1, p2]
        if extended || needsExtendedLength {
            if !data.isEmpty {
                bytes += [0x00, UInt8(data.count >> 8), UInt8(data.count & 0xFF)]
                bytes += data
            }
            if let le = expectedLength {
                let field = le == 65536 ? 0 : le
                if data.isEmpty { bytes.append(0x00) }
                bytes += [UInt8(field >> 8), UInt8(field & 0xFF)]
            }
        } else {
            if !data.isEmpty {
                bytes.append(UInt8(data.count))
                bytes += data
            }
            if let le = expectedLength {
                bytes.append(le == 256 ? 0 : UInt8(le))
            }
        }
        return bytes
    }

    /// Parses a command as a card receives it (cases 1, 2, 3 and 4, short and extended).
    public init(parsing bytes: [UInt8]) throws(ISO7816Error) {
        guard bytes.count >= 4 else { throw .commandTooShort(bytes.count) }
        cla = bytes[0]
        ins = bytes[1]
        p1 = bytes[2]
        p2 = bytes[3]
        data = []
        expectedLength = nil
        let body = bytes.count - 4
        if body == 0 { return }                       // case 1
        let b5 = Int(bytes[4])
        if body == 1 {                                // case 2 short
            expectedLength = b5 == 0 ? 256 : b5
            return
        }
        if b5 != 0 {                                  // short Lc
            let lc = b5
            if body == 1 + lc {                       // case 3 short
                data = Array(bytes[5..<(5 + lc)])
            } else if body == 2 + lc {                // case 4 short
                data = Array(bytes[5..<(5 + lc)])
                let le = Int(bytes[5 + lc])
                expectedLength = le == 0 ? 256 : le
            } else {
                throw .commandLengthMismatch("short Lc \(lc) with \(body) body byte(s)")
            }
            return
        }
        // Extended form: a 00 byte, then two length bytes.
        guard body >= 3 else {
            throw .commandLengthMismatch("extended length field cut short")
        }
        let l = Int(bytes[5]) << 8 | Int(bytes[6])
        if body == 3 {                                // case 2 extended
            expectedLength = l == 0 ? 65536 : l
            return
        }
        guard l != 0 else { throw .commandLengthMismatch("extended Lc of 0") }
        if body == 3 + l {                            // case 3 extended
            data = Array(bytes[7..<(7 + l)])
        } else if body == 5 + l {                     // case 4 extended
            data = Array(bytes[7..<(7 + l)])
            let le = Int(bytes[7 + l]) << 8 | Int(bytes[8 + l])
            expectedLength = le == 0 ? 65536 : le
        } else {
            throw .commandLengthMismatch("extended Lc \(l) with \(body) body byte(s)")
        }
    }

    /// Header and sizes only: data fields may hold PINs or keys, so they are never printed.
    public var description: String {
        let header = Hexadecimal.encode([cla, ins, p1, p2]).uppercased()
        let le = expectedLength.map { " Le=\($0)" } ?? ""
        return "\(header) Lc=\(data.count)\(le)"
    }
}

extension CommandAPDU {
    /// SELECT by DF name (AID or a prefix of it), first or only occurrence, asking for the FCI.
    public static func select(applicationIdentifier aid: [UInt8]) -> CommandAPDU {
        CommandAPDU(ins: APDUInstruction.select, p1: 0x04, p2: 0x00, data: aid, expectedLength: 256)
    }

    /// GET RESPONSE for up to `length` bytes (after a `61xx`).
    public static func getResponse(length: Int) -> CommandAPDU {
        CommandAPDU(ins: APDUInstruction.getResponse, p1: 0x00, p2: 0x00,
                    expectedLength: min(max(length, 1), maximumShortExpectedLength))
    }
}
