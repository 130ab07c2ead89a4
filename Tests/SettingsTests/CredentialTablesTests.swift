import Testing
import TestSupport
@testable import Settings

/// `[credential.NAME]` tables: which account's token the credential helpers
/// give a server; a typo or a half-written table is named with its line.
@Suite(.ownThreads) struct CredentialTablesTests {
    @Test func tablesAreReadByNameWithTheirKeys() throws {
        let document = try TOMLDocument(parsing: """
            [credential.gitlab]
            url = "https://gitlab.example.com"
            account = "work"
            username = "oauth2"
            [credential.registry]
            host = "registry.example.com:5000"
            account = "work"
            """)
        #expect(SettingsSchema.warnings(for: document).isEmpty)
        #expect(Settings(toml: document).credentials == [
            Settings.Credential(name: "gitlab", url: "https://gitlab.example.com", host: nil, account: "work", username: "oauth2"),
            Settings.Credential(name: "registry", url: nil, host: "registry.example.com:5000", account: "work", username: nil),
        ])
    }

    @Test func typosAndHalfTablesAreNamedWithTheirLines() throws {
        let document = try TOMLDocument(parsing: """
            [credential.a]
            url = "https://a.example.com"
            acount = "work"
            [credential.b]
            url = "https://b.example.com"
            host = "b.example.com"
            account = "work"
            [credentials.c]
            url = "https://c.example.com"
            [credential.d]
            host = 5
            account = "work"
            """)
        #expect(SettingsSchema.warnings(for: document) == [
            SettingsWarning(line: 1, message: "[credential.a] names no `account` (whose token the server gets); ignored"),
            SettingsWarning(line: 3, message: "unknown key `acount` in [credential.a] (did you mean `account`?); ignored"),
            SettingsWarning(line: 4, message: "[credential.b] needs one of `url` or `host` (the server), not both or neither"),
            SettingsWarning(line: 8, message: "unknown table [credentials.c]; ignored"),
            SettingsWarning(line: 10, message: "[credential.d] needs one of `url` or `host` (the server), not both or neither"),
            SettingsWarning(line: 11, message: "`host` in [credential.d] must be a string; ignored"),
        ])
        // A table without an account is left out; the others are kept for the helpers to judge.
        #expect(Settings(toml: document).credentials.map(\.name) == ["b", "d"])
    }
}
