import FoundationEssentials

/// Base64url without padding (RFC 4648 §5), as OAuth and JOSE write it.
public enum Base64URL {
    public static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// The bytes of unpadded base64url text; nil for anything else (padding,
    /// `+` or `/`, a length no encoder makes, more than `limit` characters).
    public static func decode(_ text: Substring, limit: Int = 64 << 10) -> [UInt8]? {
        guard text.utf8.count <= limit, text.utf8.count % 4 != 1,
              text.utf8.allSatisfy({ byte in
                  (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                      || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
              }) else { return nil }
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { Array($0) }
    }
}
