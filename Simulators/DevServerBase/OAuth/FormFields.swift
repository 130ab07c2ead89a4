import URLPolicy

/// `application/x-www-form-urlencoded` fields, from a query string or a body,
/// read strictly: RFC 6749 §3.1 says a parameter must not appear twice, so a
/// repeated name is an error (never "first wins" or "last wins"), and so is
/// bad percent-encoding or text that is not UTF-8. Empty values count as
/// absent (RFC 6749 §3.1).
package struct FormFields: Sendable {
    /// Bodies and query strings larger than this are refused before parsing.
    static let maxSize = 16 * 1024
    /// More fields than this is not an OAuth request.
    static let maxFields = 64

    package enum Problem: Error, Equatable {
        case tooLarge
        case repeated(String)
        case malformed
    }

    /// Every field with a non-empty value.
    package private(set) var values: [String: String] = [:]

    package subscript(name: String) -> String? { values[name] }

    package init(parsing text: Substring) throws(Problem) {
        guard text.utf8.count <= Self.maxSize else { throw .tooLarge }
        let pairs = text.split(separator: "&", omittingEmptySubsequences: true)
        guard pairs.count <= Self.maxFields else { throw .tooLarge }
        var seen: Set<String> = []
        for pair in pairs {
            let name: Substring, value: Substring
            if let equals = pair.firstIndex(of: "=") {
                name = pair[..<equals]
                value = pair[pair.index(after: equals)...]
            } else {
                name = pair
                value = ""
            }
            guard let decodedName = Self.decode(name), let decodedValue = Self.decode(value), !decodedName.isEmpty else {
                throw .malformed
            }
            // A name given twice is refused even when one of the values is empty.
            guard seen.insert(decodedName).inserted else { throw .repeated(decodedName) }
            if !decodedValue.isEmpty { values[decodedName] = decodedValue }
        }
    }

    package init(parsing bytes: [UInt8]) throws(Problem) {
        guard bytes.count <= Self.maxSize else { throw .tooLarge }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .malformed }
        try self.init(parsing: Substring(text))
    }

    /// `+` is a space; `%XX` is a byte; the bytes must be UTF-8 without control characters.
    static func decode(_ text: Substring) -> String? {
        guard let bytes = PercentEncoding.decode(text, plusIsSpace: true),
              let decoded = String(validating: bytes, as: UTF8.self),
              !decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        return decoded
    }
}
