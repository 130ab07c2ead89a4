/// A question the person must answer yes before an operation touches a key
/// on someone else's behalf — an invoke URL opened by a web page, a binding
/// link (docs/PROTOCOL.md, `invoke`). It says what the person can check (the RP ID
/// the key would sign for, the application's host, the account) apart from
/// what the requester merely claims about itself.
public struct ConfirmationRequest: Sendable, Codable, Equatable {
    /// One line naming the action: "Sign in to auth.example.com with your security key?".
    public var title: String
    /// Facts the agent checked, shown as they are: label and value
    /// ("Signs for" → "example.com", "Application" → "https://auth.example.com/v1/…").
    public var facts: [Line]
    /// What the request says about itself (app name, IP, user agent), shown
    /// under a heading that says they are the requester's words.
    public var claims: [Line]

    public struct Line: Sendable, Codable, Equatable {
        public var label: String
        public var value: String

        public init(_ label: String, _ value: String) {
            self.label = label
            self.value = DisplayText.plain(value)
        }
    }

    public init(title: String, facts: [Line], claims: [Line] = []) {
        self.title = DisplayText.plain(title)
        self.facts = facts
        self.claims = claims.filter { !$0.value.isEmpty }
    }

    /// The whole question as plain text, one fact a line: what a terminal
    /// prints and what pinentry's CONFIRM shows. Each piece is made plain
    /// again here: a question decoded from the socket did not pass `init`.
    public var text: String {
        func line(_ item: Line) -> String { "  \(DisplayText.plain(item.label)): \(DisplayText.plain(item.value))" }
        var lines = [DisplayText.plain(title), ""]
        lines += facts.map(line)
        let claims = claims.filter { !DisplayText.plain($0.value).isEmpty }
        if !claims.isEmpty {
            lines += ["", "The request says (its own words, not checked):"]
            lines += claims.map(line)
        }
        return lines.joined(separator: "\n")
    }
}

/// Text from outside the process made safe to show a person: every control
/// (Cc), format (Cf: bidi overrides, zero-width joiners), line (Zl) and
/// paragraph (Zp) separator character removed, so a requester cannot add
/// lines, reorder what is shown or hide text; at most 200 characters.
public enum DisplayText {
    public static let limit = 200

    public static func plain(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                continue
            default:
                scalars.append(scalar)
            }
        }
        let plain = String(scalars)
        return plain.count <= limit ? plain : String(plain.prefix(limit - 1)) + "…"
    }
}
