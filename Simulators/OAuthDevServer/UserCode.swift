/// RFC 8628 §6.1 user codes: 8 letters from `BCDFGHJKLMNPQRSTVWXZ` (no
/// vowels, so no words; no look-alike letters), shown as `XXXX-XXXX`, read
/// case-insensitively with or without the dash.
enum UserCode {
    static let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")

    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()  // getrandom(2): a CSPRNG, uniform over the alphabet
        return String((0..<8).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// `BCDF-GHJK` for display.
    static func display(_ code: String) -> String {
        guard code.count == 8 else { return code }
        return String(code.prefix(4)) + "-" + String(code.suffix(4))
    }

    /// The stored form of what a user typed, or nil when it cannot be a user code.
    static func normalize(_ typed: String) -> String? {
        guard typed.utf8.count <= 32 else { return nil }
        let letters = typed.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == 8, letters.allSatisfy(alphabet.contains) else { return nil }
        return letters
    }
}
