/// The lines `eval "$(passkey-agent)"` and `eval "$(passkey-agent -k)"`
/// run, in the shell's own syntax, as ssh-agent(1) writes them: Bourne
/// (`-s`) or C shell (`-c`); by default C shell when `$SHELL` ends in `csh`.
enum ShellSyntax {
    case bourne
    case cShell

    /// ssh-agent's rule: `-c` or `-s` if given, else `$SHELL`'s last three letters.
    static func chosen(cShell: Bool, bourne: Bool, shell: String?) -> ShellSyntax {
        if cShell { return .cShell }
        if bourne { return .bourne }
        return (shell ?? "").hasSuffix("csh") ? .cShell : .bourne
    }

    func export(_ name: String, _ value: String) -> String {
        switch self {
        case .bourne: return "\(name)=\(quoted(value)); export \(name);"
        case .cShell: return "setenv \(name) \(quoted(value));"
        }
    }

    func unset(_ name: String) -> String {
        switch self {
        case .bourne: return "unset \(name);"
        case .cShell: return "unsetenv \(name);"
        }
    }

    /// `value` as one word for this shell. A socket path comes from
    /// `--socket` or `$XDG_RUNTIME_DIR`, and the output is eval'd: anything
    /// beyond plain path characters is single-quoted (`'` and, for csh's
    /// history expansion, `!` escaped). Newlines are refused before this.
    func quoted(_ value: String) -> String {
        let plain = value.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "/._-+:@,%".unicodeScalars.contains($0)
        }
        if plain && !value.isEmpty { return value }
        var escaped = ""
        for character in value {
            switch character {
            case "'": escaped += "'\\''"
            case "!" where self == .cShell: escaped += "\\!"
            default: escaped.append(character)
            }
        }
        return "'\(escaped)'"
    }
}
