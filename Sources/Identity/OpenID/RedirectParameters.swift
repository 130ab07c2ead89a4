import URLPolicy

/// The query of an authorization response (RFC 6749 §4.1.2), read from
/// whatever arrived: a whole URL pasted from the browser's address bar, or
/// the request target the loopback listener got (`/callback?…`). Parameters
/// are form-encoded (`+` is a space, `%XX` a byte). A parameter that appears
/// twice is kept as ambiguous: §3.1 forbids repeats, and a repeated `state`
/// or `code` could smuggle a second value past a check of the first.
struct RedirectParameters: Sendable, Equatable {
    /// Each name with its values, in order of arrival.
    private(set) var values: [String: [String]] = [:]

    /// Longer input is no redirect: refused unread.
    static let limit = 16 << 10

    init(_ input: String) throws(OpenIDError) {
        var text = Substring(input)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        guard text.utf8.count <= Self.limit else { throw .malformedRedirect("it is longer than \(Self.limit) bytes") }
        guard let questionMark = text.firstIndex(of: "?") else { throw .malformedRedirect("it has no query (`?code=…&state=…`)") }
        var query = text[text.index(after: questionMark)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decoded(parts[0]), let value = Self.decoded(parts.count > 1 ? parts[1] : "") else {
                throw .malformedRedirect("it has a malformed percent escape")
            }
            values[name, default: []].append(value)
        }
    }

    /// The one value of `name`; nil when absent. `.repeated` when sent more than once.
    func single(_ name: String) -> Lookup {
        guard let found = values[name] else { return .absent }
        return found.count == 1 ? .one(found[0]) : .repeated
    }

    enum Lookup: Equatable {
        case absent, one(String), repeated

        var value: String? {
            if case .one(let value) = self { return value }
            return nil
        }
    }

    /// Form decoding; nil for a `%` not followed by two hex digits or bytes that are not UTF-8.
    private static func decoded(_ text: Substring) -> String? {
        PercentEncoding.decode(text, plusIsSpace: true).flatMap { String(validating: $0, as: UTF8.self) }
    }
}
