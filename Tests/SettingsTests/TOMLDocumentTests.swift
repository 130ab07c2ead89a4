import Testing
@testable import Settings

@Suite struct TOMLDocumentTests {
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
