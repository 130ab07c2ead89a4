import Harness
import Testing
import TestSupport
@testable import Settings
#if canImport(Glibc)
import Glibc
#endif

@Suite(.ownThreads) struct TOMLDocumentTests {
    @Test func readsTheSettingsFile() throws {
        let text = """
        # passkey-agent settings
        [device]
        default = "virtual"   # the software authenticator
        virtual-state = '/tmp/va.json'

        [passwordless]
        api-url = "http://127.0.0.1:8080"
        rp-id = "example.org"

        [agent]
        idle-timeout = 1_800
        """
        let settings = Settings(toml: try TOMLDocument(parsing: text))
        #expect(settings.device.defaultDevice == "virtual")
        #expect(settings.device.virtualState == "/tmp/va.json")
        #expect(settings.passwordless.apiURL == "http://127.0.0.1:8080")
        #expect(settings.passwordless.rpId == "example.org")
        #expect(settings.passwordless.origin == nil)
        #expect(settings.agent.idleTimeoutSeconds == 1800)
    }

    @Test func valuesOfEveryKind() throws {
        let text = #"""
        a = "x\"y\u00e9\n"
        b = -42
        c = true
        d = ["p", 'q', 3, false]
        [t.u]
        "quoted key" = "v"
        """#
        let doc = try TOMLDocument(parsing: text)
        #expect(doc["", "a"] == .string("x\"yé\n"))
        #expect(doc["", "b"] == .integer(-42))
        #expect(doc["", "c"] == .boolean(true))
        #expect(doc["", "d"] == .array([.string("p"), .string("q"), .integer(3), .boolean(false)]))
        #expect(doc.string("t.u", "quoted key") == "v")
    }

    @Test func deepArraysAreAnErrorNotAStackOverflow() throws {
        // The fuzzer's find: 5,000 `[` overflowed the agent's stack (SIGSEGV at start and on reload).
        #expect(throws: TOMLDocument.ParseError(line: 2, reason: "arrays nest deeper than 16 levels")) {
            try TOMLDocument(parsing: "[agent]\nidle-timeout = " + String(repeating: "[", count: 100_000))
        }
        let sixteen = String(repeating: "[", count: 16) + String(repeating: "]", count: 16)
        #expect(try TOMLDocument(parsing: "a = " + sixteen)["", "a"] != nil)
    }

    @Test func refusesWhatItDoesNotUnderstandWithTheLine() {
        #expect(throws: TOMLDocument.ParseError(line: 2, reason: "expected `=` after `b`")) {
            try TOMLDocument(parsing: "a = 1\nb 2")
        }
        #expect(throws: TOMLDocument.ParseError(line: 1, reason: "unterminated string")) {
            try TOMLDocument(parsing: "a = \"open")
        }
        #expect(throws: TOMLDocument.ParseError(line: 2, reason: "`a` is set twice")) {
            try TOMLDocument(parsing: "a = 1\na = 2")
        }
        #expect(throws: TOMLDocument.ParseError(line: 1, reason: "arrays of tables are not supported")) {
            try TOMLDocument(parsing: "[[x]]")
        }
        #expect(throws: TOMLDocument.ParseError(line: 1, reason: "dotted keys are not supported; use a [table] header")) {
            try TOMLDocument(parsing: "a.b = 1")
        }
    }

    @Test func pathsFollowXDGAndTheSocketOverride() {
        let paths = AgentPaths(environment: ["HOME": "/home/u", "XDG_RUNTIME_DIR": "/run/user/1000"])
        #expect(paths.socket == "/run/user/1000/passkey-agent/agent.sock")
        #expect(paths.dataDirectory == "/home/u/.local/share/passkey-agent")
        #expect(paths.configFile == "/home/u/.config/passkey-agent/config.toml")
        #expect(AgentPaths(environment: ["HOME": "/home/u"]).socket == nil)
        #expect(AgentPaths(environment: ["HOME": "/home/u", "XDG_RUNTIME_DIR": "relative"]).socket == nil)
        #expect(AgentPaths(environment: ["PASSKEY_AGENT_SOCK": "/tmp/s.sock"]).socket == "/tmp/s.sock")
        #expect(AgentPaths(environment: ["HOME": "/h", "XDG_DATA_HOME": "/d"]).dataDirectory == "/d/passkey-agent")
    }
}

@Suite(.ownThreads) struct SettingsWarningTests {
    @Test func namesUnknownKeysAndWrongKindsWithTheirLines() throws {
        let text = """
        [agent]
        idle-timout = 60
        [device]
        default = 3
        [passwordles]
        api-url = "x"
        [passwordless]
        rp-id = "example.org"
        """
        let document = try TOMLDocument(parsing: text)
        #expect(SettingsSchema.warnings(for: document) == [
            SettingsWarning(line: 2, message: "unknown key `idle-timout` in [agent] (did you mean `idle-timeout`?); ignored"),
            SettingsWarning(line: 4, message: "`default` in [device] must be a string; ignored"),
            SettingsWarning(line: 5, message: "unknown table [passwordles] (did you mean `passwordless`?); ignored"),
        ])
        let settings = Settings(toml: document)
        #expect(settings.agent.idleTimeoutSeconds == nil)
        #expect(settings.device.defaultDevice == nil)
        #expect(settings.passwordless.rpId == "example.org")
    }

    @Test func aKeyOutsideEveryTableAndANegativeTimeoutAreIgnored() throws {
        let document = try TOMLDocument(parsing: "idle-timeout = 5\n[agent]\nidle-timeout = -1\n")
        #expect(SettingsSchema.warnings(for: document) == [
            SettingsWarning(line: 1, message: "`idle-timeout` must be inside a table such as [agent]; ignored"),
            SettingsWarning(line: 3, message: "`idle-timeout` in [agent] must be 0 (never) or a number of seconds; ignored"),
        ])
        #expect(Settings(toml: document).agent.idleTimeoutSeconds == nil)
    }

    @Test func aCleanFileHasNoWarnings() throws {
        let document = try TOMLDocument(parsing: "[agent]\nidle-timeout = 0\n[device]\ndefault = \"virtual\"\n")
        #expect(SettingsSchema.warnings(for: document).isEmpty)
    }
}

@Suite(.ownThreads) struct ConfigFileTests {
    private func scratch() throws -> String {
        try TemporaryDirectory.make(prefix: "passkey-config")
    }

    @Test func aMissingFileMeansDefaults() throws {
        let directory = try scratch()
        let read = try Settings.read(from: directory + "/config.toml")
        #expect(read.settings == Settings())
        #expect(read.warnings.isEmpty)
    }

    @Test func aFIFOIsRefusedWithoutHanging() throws {
        let directory = try scratch()
        let path = directory + "/config.toml"
        #expect(mkfifo(path, 0o600) == 0)
        #expect(throws: SettingsError.unreadable(path, reason: "it is a FIFO, not a regular file")) { try Settings.read(from: path) }
    }

    @Test func aFileOthersMayWriteIsRefused() throws {
        let directory = try scratch()
        let path = directory + "/config.toml"
        let fd = open(path, O_WRONLY | O_CREAT, 0o600)
        #expect(fd >= 0)
        close(fd)
        #expect(chmod(path, 0o666) == 0)
        #expect(throws: SettingsError.unreadable(path, reason: "mode 666 lets other users change it; run chmod 600 on it")) {
            try Settings.read(from: path)
        }
    }

    @Test func aSymlinkToTheUsersOwnFileIsFollowed() throws {
        let directory = try scratch()
        let target = directory + "/dotfiles.toml"
        let text = "[agent]\nidle-timeout = 30\n"
        let fd = open(target, O_WRONLY | O_CREAT, 0o600)
        _ = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        #expect(symlink(target, directory + "/config.toml") == 0)
        #expect(try Settings.read(from: directory + "/config.toml").settings.agent.idleTimeoutSeconds == 30)
    }
}
