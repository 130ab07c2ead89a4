#if canImport(Glibc)
import Glibc
#endif

/// The user's `$XDG_CONFIG_HOME/mimeapps.list` (XDG MIME Applications
/// Associations), where `xdg-mime default` records a scheme's handler: what
/// `install-handler` found there before it made itself the default, so that
/// `--uninstall` can put it back, or take its own entry out when there was none.
struct MimeAppsList {
    static let defaultsSection = "[Default Applications]"
    /// Larger than any mimeapps.list a person keeps: not read.
    static let sizeLimit = 1 << 20

    var lines: [String]

    init(text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
    }

    var text: String { lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n" }

    /// The `[Default Applications]` value for `mimeType` (a `;`-separated list of desktop files).
    func defaultValue(_ mimeType: String) -> String? {
        var section = ""
        for line in lines {
            if line.hasPrefix("[") { section = line; continue }
            if section == Self.defaultsSection, let value = Self.value(line, key: mimeType) { return value }
        }
        return nil
    }

    /// Sets the default of `mimeType` to `value` (nil: removes the key),
    /// adding the section when it is missing.
    mutating func setDefault(_ mimeType: String, to value: String?) {
        var section = "", sectionEnd: Int?
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line.hasPrefix("[") {
                section = line
                if line == Self.defaultsSection { sectionEnd = index + 1 }
                index += 1
                continue
            }
            if section == Self.defaultsSection {
                if Self.value(line, key: mimeType) != nil {
                    if let value { lines[index] = mimeType + "=" + value; return }
                    lines.remove(at: index)
                    continue
                }
                if !line.trimmingWhitespace.isEmpty { sectionEnd = index + 1 }
            }
            index += 1
        }
        guard let value else { return }
        if let sectionEnd {
            lines.insert(mimeType + "=" + value, at: sectionEnd)
        } else {
            lines += [Self.defaultsSection, mimeType + "=" + value]
        }
    }

    /// Every `x-scheme-handler/…` type whose default names `desktop`.
    func schemesHandled(by desktop: String) -> [String] {
        var section = "", found: [String] = []
        for line in lines {
            if line.hasPrefix("[") { section = line; continue }
            guard section == Self.defaultsSection, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingWhitespace
            guard key.hasPrefix("x-scheme-handler/"),
                  line[line.index(after: equals)...].split(separator: ";").contains(where: { $0.trimmingWhitespace == desktop }) else { continue }
            found.append(key)
        }
        return found
    }

    private static func value(_ line: String, key: String) -> String? {
        guard let equals = line.firstIndex(of: "="), line[..<equals].trimmingWhitespace == key else { return nil }
        return line[line.index(after: equals)...].trimmingWhitespace
    }
}

/// What `install-handler` found as each scheme's default before it took
/// over: `$XDG_STATE_HOME/passkey-agent/previous-scheme-handlers`, one
/// `x-scheme-handler/SCHEME=VALUE` per line (VALUE empty: there was none).
/// Recorded once, on the first install, so a second install does not record itself.
struct PreviousSchemeHandlers {
    var entries: [(mimeType: String, value: String)] = []

    init(text: String) {
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            entries.append((String(line[..<equals]), String(line[line.index(after: equals)...])))
        }
    }

    var text: String { entries.map { $0.mimeType + "=" + $0.value + "\n" }.joined() }

    func previous(_ mimeType: String) -> String?? {
        guard let entry = entries.first(where: { $0.mimeType == mimeType }) else { return .none }
        return .some(entry.value.isEmpty ? nil : entry.value)
    }

    mutating func record(_ mimeType: String, _ value: String?) {
        guard previous(mimeType) == nil else { return }
        entries.append((mimeType, value ?? ""))
    }

    mutating func forget(_ mimeType: String) {
        entries.removeAll { $0.mimeType == mimeType }
    }
}

fileprivate extension StringProtocol {
    var trimmingWhitespace: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
