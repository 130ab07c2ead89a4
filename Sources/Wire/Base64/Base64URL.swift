import FoundationEssentials

/// base64url (RFC 4648 §5): the one encoder and decoder of every binary
/// field in WebAuthn's JSON forms, JOSE (JWS parts, JWKs), PKCE and the
/// devserver's tokens.
///
/// Encoding never pads. Decoding is strict about the alphabet everywhere —
/// `+` or `/` means the sender used the wrong encoding (fido2-net-lib refuses
/// them too), and a length no encoder makes is refused — and each caller
/// says which padding rule its protocol has (`Padding`): JOSE forbids
/// padding (RFC 7515 §2); WebAuthn's JSON is tolerated padded, as
/// fido2-net-lib tolerates it.
public enum Base64URL {
    /// What a decoder does with trailing `=`.
    public enum Padding: Sendable {
        /// Any `=` makes the text not base64url (JOSE, OAuth: RFC 7515 §2, RFC 7636 §3).
        case refused
        /// Up to two trailing `=` are taken off first (WebAuthn's JSON forms).
        case tolerated
    }

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

    /// The bytes of base64url text; nil for anything else: a character outside
    /// `A-Z a-z 0-9 - _`, padding where `padding` refuses it, a length no encoder
    /// makes, more than `limit` characters.
    public static func decode(_ text: some StringProtocol, padding: Padding, limit: Int = .max) -> [UInt8]? {
        var body = Substring(text)
        guard body.utf8.count <= limit else { return nil }
        if padding == .tolerated {
            for _ in 0..<2 where body.last == "=" { body.removeLast() }
        }
        guard body.utf8.allSatisfy(isBase64URL), body.utf8.count % 4 != 1 else { return nil }
        var standard = String(body.unicodeScalars.map { $0 == "-" ? "+" : $0 == "_" ? "/" : Character($0) })
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }

    static func isBase64URL(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
