/// Percent-encoding (RFC 3986 §2.1), the one encoder and decoder: OAuth
/// form bodies and queries (`application/x-www-form-urlencoded`, where `+`
/// is a space), redirect parameters, and the account names in settings file
/// names.
public enum PercentEncoding {
    /// RFC 3986 unreserved characters (`A-Z a-z 0-9 - . _ ~`): the only bytes `encode` keeps.
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// `text` with every byte but those `keep` accepts written `%XX` (upper-case
    /// hex): by default the unreserved ones, the form encoding of OAuth 2.0 §B.
    public static func encode(_ text: String, keeping keep: (UInt8) -> Bool = isUnreserved) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if keep(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self)
            }
        }
        return out
    }

    /// `name=value&…`, each part encoded, in the given order.
    public static func query(_ items: [(String, String)]) -> String {
        items.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }

    /// The bytes `text` stands for: `%XX` (exactly two hex digits, either case)
    /// is a byte, and with `plusIsSpace` (form encoding) `+` is a space. nil
    /// for a `%` not followed by two hex digits. Callers check what the bytes
    /// must be (UTF-8, no control characters).
    public static func decode(_ text: Substring, plusIsSpace: Bool) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var rest = text.utf8[...]
        while let byte = rest.popFirst() {
            switch byte {
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = rest.popFirst().flatMap(hexValue), let low = rest.popFirst().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
