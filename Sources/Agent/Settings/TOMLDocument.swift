/// The part of TOML (v1.0) that passkey-agent's config.toml uses: tables,
/// dotted table headers, `key = value` with strings, integers, booleans and
/// one-line arrays of those, and comments. Anything else is refused with the
/// line number, rather than half-understood.
///
/// (TOMLKit, the Swift TOML library, cannot be used: it depends on a package
/// this project's package mirror does not carry.)
public struct TOMLDocument: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int)
        case boolean(Bool)
        case array([Value])
    }

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// Values by table name ("" for the root) and key.
    public private(set) var tables: [String: [String: Value]] = [:]
    /// The line each key was set on, and (under the key "") each table header's line:
    /// warnings about a key name the line a person will look for.
    public private(set) var lines: [String: [String: Int]] = [:]

    public subscript(table: String, key: String) -> Value? { tables[table]?[key] }

    public func string(_ table: String, _ key: String) -> String? {
        if case .string(let s)? = self[table, key] { return s }
        return nil
    }

    public func integer(_ table: String, _ key: String) -> Int? {
        if case .integer(let n)? = self[table, key] { return n }
        return nil
    }

    /// An array whose items are all strings; nil when absent or of another kind.
    public func strings(_ table: String, _ key: String) -> [String]? {
        guard case .array(let values)? = self[table, key] else { return nil }
        var strings: [String] = []
        for value in values {
            guard case .string(let string) = value else { return nil }
            strings.append(string)
        }
        return strings
    }

    public func boolean(_ table: String, _ key: String) -> Bool? {
        if case .boolean(let b)? = self[table, key] { return b }
        return nil
    }

    public init(parsing text: String) throws(ParseError) {
        var table = ""
        tables[""] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var scanner = TOMLScanner(Substring(rawLine), line: number)
            scanner.skipSpace()
            if scanner.atEndOrComment { continue }
            if scanner.peek == "[" {
                table = try scanner.tableHeader()
                guard tables[table] == nil || tables[table]!.isEmpty else {
                    throw ParseError(line: number, reason: "table [\(table)] is defined twice")
                }
                tables[table] = [:]
                lines[table, default: [:]][""] = number
            } else {
                let key = try scanner.key()
                if scanner.peek == "." { throw ParseError(line: number, reason: "dotted keys are not supported; use a [table] header") }
                scanner.skipSpace()
                guard scanner.take("=") else { throw ParseError(line: number, reason: "expected `=` after `\(key)`") }
                scanner.skipSpace()
                let value = try scanner.value()
                scanner.skipSpace()
                guard scanner.atEndOrComment else { throw ParseError(line: number, reason: "unexpected text after the value of `\(key)`") }
                guard tables[table]?[key] == nil else {
                    throw ParseError(line: number, reason: "`\(key)` is set twice")
                }
                tables[table, default: [:]][key] = value
                lines[table, default: [:]][key] = number
            }
        }
    }
}
