/// Reads one line of the TOML subset `TOMLDocument` accepts.
struct TOMLScanner {
    private var rest: Substring
    private let line: Int

    init(_ text: Substring, line: Int) {
        self.rest = text.last == "\r" ? text.dropLast() : text
        self.line = line
    }

    var peek: Character? { rest.first }
    var atEndOrComment: Bool { rest.isEmpty || rest.first == "#" }

    mutating func skipSpace() {
        while let c = rest.first, c == " " || c == "\t" { rest.removeFirst() }
    }

    mutating func take(_ c: Character) -> Bool {
        guard rest.first == c else { return false }
        rest.removeFirst()
        return true
    }

    func fail(_ reason: String) -> TOMLDocument.ParseError { .init(line: line, reason: reason) }

    mutating func tableHeader() throws(TOMLDocument.ParseError) -> String {
        _ = take("[")
        if take("[") { throw fail("arrays of tables are not supported") }
        var parts: [String] = []
        repeat {
            skipSpace()
            parts.append(try key())
            skipSpace()
        } while take(".")
        guard take("]") else { throw fail("expected `]` to close the table header") }
        skipSpace()
        guard atEndOrComment else { throw fail("unexpected text after the table header") }
        return parts.joined(separator: ".")
    }

    /// A bare key (A-Z a-z 0-9 _ -) or a quoted one.
    mutating func key() throws(TOMLDocument.ParseError) -> String {
        if peek == "\"" { return try basicString() }
        if peek == "'" { return try literalString() }
        var key = ""
        while let c = rest.first, c.isASCII, c.isLetter || c.isNumber || c == "_" || c == "-" {
            key.append(c)
            rest.removeFirst()
        }
        guard !key.isEmpty else { throw fail("expected a key") }
        return key
    }

    /// Arrays in arrays, at most: each level is a recursion, and a line of
    /// thousands of `[` must be an error, not a stack overflow. No setting
    /// takes an array at all, so this is generous.
    static let maxArrayDepth = 16

    mutating func value(depth: Int = 0) throws(TOMLDocument.ParseError) -> TOMLDocument.Value {
        switch peek {
        case "\"":
            if rest.hasPrefix("\"\"\"") { throw fail("multi-line strings are not supported") }
            return .string(try basicString())
        case "'":
            if rest.hasPrefix("'''") { throw fail("multi-line strings are not supported") }
            return .string(try literalString())
        case "[":
            guard depth < Self.maxArrayDepth else { throw fail("arrays nest deeper than \(Self.maxArrayDepth) levels") }
            return .array(try array(depth: depth + 1))
        case "t", "f":
            if rest.hasPrefix("true") { rest.removeFirst(4); return .boolean(true) }
            if rest.hasPrefix("false") { rest.removeFirst(5); return .boolean(false) }
            throw fail("expected true or false")
        default:
            return .integer(try integer())
        }
    }

    private mutating func array(depth: Int) throws(TOMLDocument.ParseError) -> [TOMLDocument.Value] {
        _ = take("[")
        var items: [TOMLDocument.Value] = []
        while true {
            skipSpace()
            if take("]") { return items }
            if rest.isEmpty { throw fail("arrays must close on the same line") }
            items.append(try value(depth: depth))
            skipSpace()
            if take(",") { continue }
            guard take("]") else { throw fail("expected `,` or `]` in the array") }
            return items
        }
    }

    private mutating func integer() throws(TOMLDocument.ParseError) -> Int {
        var digits = ""
        if let sign = peek, sign == "+" || sign == "-" { digits.append(sign); rest.removeFirst() }
        while let c = rest.first, c.isASCII, c.isNumber || c == "_" {
            if c != "_" { digits.append(c) }
            rest.removeFirst()
        }
        guard let value = Int(digits) else {
            throw fail("expected a value (a \"string\", an integer, true/false or an [array])")
        }
        return value
    }

    private mutating func literalString() throws(TOMLDocument.ParseError) -> String {
        _ = take("'")
        guard let end = rest.firstIndex(of: "'") else { throw fail("unterminated string") }
        let text = String(rest[..<end])
        rest = rest[rest.index(after: end)...]
        return text
    }

    private mutating func basicString() throws(TOMLDocument.ParseError) -> String {
        _ = take("\"")
        var text = ""
        while let c = rest.first {
            rest.removeFirst()
            switch c {
            case "\"": return text
            case "\\":
                guard let escaped = rest.first else { throw fail("unterminated escape") }
                rest.removeFirst()
                switch escaped {
                case "\"": text.append("\"")
                case "\\": text.append("\\")
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "u", "U":
                    let width = escaped == "u" ? 4 : 8
                    let hex = rest.prefix(width)
                    guard hex.count == width, let code = UInt32(hex, radix: 16),
                          let scalar = Unicode.Scalar(code) else { throw fail("bad \\\(escaped) escape") }
                    text.unicodeScalars.append(scalar)
                    rest.removeFirst(width)
                default: throw fail("unknown escape \\\(escaped)")
                }
            default: text.append(c)
            }
        }
        throw fail("unterminated string")
    }
}
