import Harness
import Testing
import TestSupport
@testable import Settings
#if canImport(Glibc)
import Glibc
#endif

/// What `passkey login` remembers per account: written and read back
/// exactly, under a file name no account name can escape from.
@Suite(.ownThreads) struct AccountSettingsTests {
    @Test func writesAndReadsBackEveryMember() throws {
        let settings = AccountSettings(issuer: "https://id.example.org/oauth2/default", clientId: "cli \"quoted\" \\ back",
                                       scopes: ["openid", "offline_access"], flow: "device", subject: "00u\n1\u{7}x",
                                       needsLogin: true)
        #expect(try AccountSettings(toml: settings.toml) == settings)
        let plain = AccountSettings(issuer: "https://a", clientId: "c", scopes: [], flow: nil, subject: nil)
        #expect(try AccountSettings(toml: plain.toml) == plain)
    }

    @Test func aFileWithoutIssuerOrClientIsRefusedByName() {
        #expect(throws: AccountSettingsError.unreadable("`issuer` is missing")) { try AccountSettings(toml: "client_id = \"c\"\n") }
        #expect(throws: AccountSettingsError.unreadable("`client_id` is missing")) { try AccountSettings(toml: "issuer = \"i\"\n") }
    }

    @Test func accountNamesStayInsideTheDirectory() throws {
        let store = AccountSettingsStore(directory: "/d")
        #expect(try store.path(for: "work") == "/d/work.toml")
        #expect(try store.path(for: "../etc/passwd") == "/d/%2E.%2Fetc%2Fpasswd.toml")
        #expect(try store.path(for: ".hidden") == "/d/%2Ehidden.toml")
        #expect(try store.path(for: "a b/ü") == "/d/a%20b%2F%C3%BC.toml")
        #expect(throws: AccountSettingsError.nameTooLong) { try store.path(for: String(repeating: "ü", count: 128)) }
    }

    @Test func savedFilesArePrivateAndRemovable() throws {
        let home = try TemporaryDirectory.make(prefix: "accounts")
        defer { TemporaryDirectory.remove(home) }
        let store = AccountSettingsStore(directory: home + "/config/passkey-agent/accounts")
        let settings = AccountSettings(issuer: "https://a", clientId: "c", scopes: ["openid"], flow: "browser", subject: "s")
        try store.save(settings, for: "work")
        #expect(try store.load("work") == settings)
        var info = stat()
        #expect(stat(store.directory, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(try store.path(for: "work"), &info) == 0 && info.st_mode & 0o777 == 0o600)
        try store.remove("work")
        #expect(try store.load("work") == nil)
    }
}
