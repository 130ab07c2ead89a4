/// Every table and key config.toml may hold, and the kind of value each
/// takes. A key that is not here is almost always a typo (`idle-timout`),
/// so it is reported with its line instead of being silently ignored.
enum SettingsSchema {
    enum Kind: String {
        case string = "a string"
        case integer = "an integer"
        case strings = "an array of strings"

        func accepts(_ value: TOMLDocument.Value) -> Bool {
            switch (self, value) {
            case (.string, .string), (.integer, .integer): return true
            case (.strings, .array(let values)):
                return values.allSatisfy { if case .string = $0 { return true } else { return false } }
            default: return false
            }
        }
    }

    static let tables: [String: [String: Kind]] = [
        "device": ["default": .string, "virtual-state": .string],
        "passwordless": ["api-url": .string, "apiUrl": .string, "api-key": .string, "apiKey": .string,
                         "rp-id": .string, "rpId": .string, "origin": .string],
        "agent": ["idle-timeout": .integer],
        "invoke": ["trusted-hosts": .strings],
    ]

    /// The keys of each `[invoke.application.NAME]` table.
    static let applicationKeys: [String: Kind] = ["issuer": .string, "rp-ids": .strings, "hosts": .strings]

    /// The keys of each `[credential.NAME]` table.
    static let credentialKeys: [String: Kind] = ["url": .string, "host": .string, "account": .string, "username": .string]

    /// The known keys of `table`, nil for an unknown table.
    static func keys(of table: String) -> [String: Kind]? {
        if table.hasPrefix(Settings.applicationTablePrefix), table.count > Settings.applicationTablePrefix.count { return applicationKeys }
        if table.hasPrefix(Settings.credentialTablePrefix), table.count > Settings.credentialTablePrefix.count { return credentialKeys }
        return tables[table]
    }

    /// What is wrong with `document` that does not stop it being used:
    /// unknown tables and keys, values of the wrong kind (each ignored).
    static func warnings(for document: TOMLDocument) -> [SettingsWarning] {
        var warnings: [SettingsWarning] = []
        for (table, values) in document.tables {
            let lines = document.lines[table] ?? [:]
            guard let known = keys(of: table) else {
                if table.isEmpty {
                    for key in values.keys {
                        warnings.append(SettingsWarning(line: lines[key] ?? 0,
                            message: "`\(key)` must be inside a table such as [agent]; ignored"))
                    }
                } else {
                    warnings.append(SettingsWarning(line: lines[""] ?? 0,
                        message: "unknown table [\(table)]\(suggestion(table, among: tables.keys)); ignored"))
                }
                continue
            }
            for (key, value) in values {
                let line = lines[key] ?? 0
                guard let kind = known[key] else {
                    warnings.append(SettingsWarning(line: line,
                        message: "unknown key `\(key)` in [\(table)]\(suggestion(key, among: known.keys)); ignored"))
                    continue
                }
                if !kind.accepts(value) {
                    warnings.append(SettingsWarning(line: line, message: "`\(key)` in [\(table)] must be \(kind.rawValue); ignored"))
                }
            }
        }
        for table in document.tables.keys where keys(of: table) == applicationKeys && document.string(table, "issuer") == nil {
            warnings.append(SettingsWarning(line: document.lines[table]?[""] ?? 0,
                message: "[\(table)] names no `issuer` (the application's URL); ignored"))
        }
        for table in document.tables.keys where keys(of: table) == credentialKeys {
            let line = document.lines[table]?[""] ?? 0
            if document.string(table, "account")?.isEmpty ?? true {
                warnings.append(SettingsWarning(line: line, message: "[\(table)] names no `account` (whose token the server gets); ignored"))
            }
            if (document.string(table, "url") == nil) == (document.string(table, "host") == nil) {
                warnings.append(SettingsWarning(line: line, message: "[\(table)] needs one of `url` or `host` (the server), not both or neither"))
            }
        }
        if case .integer(let seconds)? = document["agent", "idle-timeout"], seconds < 0 {
            warnings.append(SettingsWarning(line: document.lines["agent"]?["idle-timeout"] ?? 0,
                message: "`idle-timeout` in [agent] must be 0 (never) or a number of seconds; ignored"))
        }
        return warnings.sorted { ($0.line, $0.message) < ($1.line, $1.message) }
    }

    /// ` (did you mean `x`?)` when one known name is within two edits of `name`.
    private static func suggestion(_ name: String, among candidates: some Sequence<String>) -> String {
        let close = candidates.filter { editDistance(name, $0) <= 2 }.sorted()
        guard let best = close.min(by: { editDistance(name, $0) < editDistance(name, $1) }) else { return "" }
        return " (did you mean `\(best)`?)"
    }

    /// Levenshtein distance; names here are a few dozen characters at most.
    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard a.count <= 64, b.count <= 64 else { return Int.max }
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// Something in config.toml that was ignored, with its line.
public struct SettingsWarning: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}
