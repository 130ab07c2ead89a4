import FoundationEssentials

/// base64url without padding (RFC 4648 §5), the encoding WebAuthn's JSON forms
/// use for every binary field.
public enum Base64URL {
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let standard = Data(bytes).base64EncodedString()
        var text = ""
        text.reserveCapacity(standard.utf8.count)
        for c in standard.unicodeScalars {
            switch c {
            case "+": text += "-"
            case "/": text += "_"
            case "=": continue
            default: text.unicodeScalars.append(c)
            }
        }
        return text
    }

    /// Decodes base64url; padding is tolerated, standard-base64 characters are not
    /// (as fido2-net-lib refuses them: a `+` or `/` means the sender used the wrong encoding).
    public static func decode(_ text: String) -> [UInt8]? {
        var body = Substring(text)
        while body.last == "=" { body.removeLast() }
        guard body.utf8.allSatisfy({ isBase64URL($0) }), body.utf8.count % 4 != 1 else { return nil }
        var standard = String(body.unicodeScalars.map { $0 == "-" ? "+" : $0 == "_" ? "/" : Character($0) })
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }

    private static func isBase64URL(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
