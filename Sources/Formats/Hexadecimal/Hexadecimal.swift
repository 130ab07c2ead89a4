/// Hexadecimal text for bytes: how APDUs, ATRs and keys are shown in logs,
/// JSON reports and command-line input.
public enum Hexadecimal {
    private static let digits: [Character] = Array("0123456789abcdef")

    /// Lower-case hex, two digits per byte, no separators.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text = ""
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }

    /// Decodes hex digits (either case). Spaces and colons between bytes are
    /// ignored so that pasted dumps like `01:02:03` work.
    public static func decode(_ text: some StringProtocol) throws(ISO7816Error) -> [UInt8] {
        var bytes: [UInt8] = []
        var high: UInt8?
        for scalar in text.unicodeScalars {
            if scalar == " " || scalar == ":" || scalar == "\n" || scalar == "\t" {
                if high != nil { throw .invalidHex }
                continue
            }
            guard let nibble = nibble(scalar) else { throw .invalidHex }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        if high != nil { throw .invalidHex }
        return bytes
    }

    private static func nibble(_ scalar: Unicode.Scalar) -> UInt8? {
        switch scalar.value {
        case 0x30...0x39: return UInt8(scalar.value - 0x30)
        case 0x41...0x46: return UInt8(scalar.value - 0x41 + 10)
        case 0x61...0x66: return UInt8(scalar.value - 0x61 + 10)
        default: return nil
        }
    }
}
