import FoundationEssentials

extension Base64URL {
    /// Bytes from base64 (`+/`) or base64url (`-_`), padded or not, for
    /// servers that send either (okta-mobile-swift sends base64, okta-auth-js
    /// base64url). One alphabet per value: text mixing `+/` with `-_` is nil,
    /// and so is `=` anywhere but the end (Foundation's decoder would take it
    /// inside the text) or more than two of them, as `decode(_:padding:)`
    /// says. Callers bound the length first.
    public static func decodeEitherAlphabet(_ text: String) -> [UInt8]? {
        var body = Substring(text)
        for _ in 0..<2 where body.last == "=" { body.removeLast() }
        let bytes = Array(body.utf8)
        guard bytes.allSatisfy(isEitherAlphabet) else { return nil }
        let url = bytes.contains(UInt8(ascii: "-")) || bytes.contains(UInt8(ascii: "_"))
        let standard = bytes.contains(UInt8(ascii: "+")) || bytes.contains(UInt8(ascii: "/"))
        guard !(url && standard), bytes.count % 4 != 1 else { return nil }
        guard url || standard else { return decode(body, padding: .refused) }
        var normalised = bytes.map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "-"): return UInt8(ascii: "+")
            case UInt8(ascii: "_"): return UInt8(ascii: "/")
            default: return byte
            }
        }
        normalised += [UInt8](repeating: UInt8(ascii: "="), count: (4 - normalised.count % 4) % 4)
        return Data(base64Encoded: String(decoding: normalised, as: UTF8.self)).map(Array.init)
    }

    private static func isEitherAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
