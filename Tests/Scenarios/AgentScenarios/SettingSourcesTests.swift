import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `agent.status` names each setting in force and what decided it — a flag
/// on the agent's command line, config.toml, or the default — and with no
/// flag, `[agent] idle-timeout` governs both the vault's idle lock and the
/// exit of a socket-activated agent (the systemd unit passes no setting).
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct SettingSourcesTests {
    private func writeConfig(_ text: String, for harness: AgentHarness) throws {
        let directory = harness.environment["XDG_CONFIG_HOME"]! + "/passkey-agent"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try text.write(toFile: directory + "/config.toml", atomically: true, encoding: .utf8)
        chmod(directory + "/config.toml", 0o600)
    }

    /// name → (value, source) from `agent.status`.
    private func settings(_ harness: AgentHarness) throws -> [String: (value: String?, source: String)] {
        let status: [String: Any] = try #require(try harness.connect().call(1, "agent.status").result)
        let list = try #require(status["settings"] as? [[String: Any]], "agent.status has settings")
        var byName: [String: (value: String?, source: String)] = [:]
        for entry in list {
            let name = try #require(entry["name"] as? String)
            byName[name] = (entry["value"] as? String, try #require(entry["source"] as? String))
        }
        return byName
    }

    @Test("config.toml's values, the defaults and the flags, each named with its source")
    func eachSettingSaysWhereItCameFrom() throws {
        let harness = try AgentHarness()
        try writeConfig("[agent]\nidle-timeout = 0\n[device]\ndefault = \"virtual\"\n", for: harness)
        try harness.start(arguments: ["--max-connections", "64"])
        let settings = try settings(harness)
        #expect(settings["agent.idle-timeout"]?.value == "0")
        #expect(settings["agent.idle-timeout"]?.source == "config.toml")
        #expect(settings["device.default"]?.value == "virtual")
        #expect(settings["device.default"]?.source == "config.toml")
        #expect(settings["passwordless.api-url"]?.source == "default")
        #expect(settings["passwordless.api-url"].map { $0.value == nil } == true, "nothing set it, and it has no default")
        #expect(settings["device.virtual-state"]?.value == harness.home + "/data/passkey-agent/virtual-authenticator.json")
        #expect(settings["device.virtual-state"]?.source == "default")
        #expect(settings["--max-connections"]?.value == "64")
        #expect(settings["--max-connections"]?.source == "flag")
        #expect(settings["--line-timeout"]?.value == "10")
        #expect(settings["--line-timeout"]?.source == "default")

        let shown = try harness.passkey(["status"])
        #expect(shown.status == 0, "\(shown.standardError)")
        #expect(shown.standardOutput.contains("setting: agent.idle-timeout = 0 (never)  (config.toml)"), "\(shown.standardOutput)")
        #expect(shown.standardOutput.contains("setting: --max-connections = 64  (flag)"))
        #expect(shown.standardOutput.contains("setting: passwordless.api-url not set  (default)"))
    }

    @Test("each key of a named table ([invoke.application.NAME], [credential.NAME]) is listed as config.toml's")
    func namedTablesAreListed() throws {
        let harness = try AgentHarness()
        try writeConfig("""
            [invoke.application.acme]
            issuer = "https://auth.example.com/v1/tenants/t/realms/r/applications/a"
            hosts = ["acme.okta.com"]
            [credential.gitlab]
            host = "gitlab.example.com"
            account = "work"
            """, for: harness)
        try harness.start()
        let settings = try settings(harness)
        #expect(settings["invoke.application.acme.issuer"]?.value == "https://auth.example.com/v1/tenants/t/realms/r/applications/a")
        #expect(settings["invoke.application.acme.issuer"]?.source == "config.toml")
        #expect(settings["invoke.application.acme.hosts"]?.value == "acme.okta.com")
        #expect(settings["invoke.application.acme.rp-ids"] == nil, "a key the file does not set is not listed")
        #expect(settings["credential.gitlab.account"]?.value == "work")
        #expect(settings["credential.gitlab.host"]?.source == "config.toml")
    }

    @Test("a flag beats config.toml, and status says so; without either the default is named")
    func aFlagOverridesTheFile() throws {
        let harness = try AgentHarness()
        try writeConfig("[agent]\nidle-timeout = 0\n", for: harness)
        try harness.start(arguments: ["--idle-timeout", "600"])
        #expect(try settings(harness)["agent.idle-timeout"]?.value == "600")
        #expect(try settings(harness)["agent.idle-timeout"]?.source == "flag")

        let plain = try AgentHarness()
        try plain.start()
        #expect(try settings(plain)["agent.idle-timeout"]?.value == "900")
        #expect(try settings(plain)["agent.idle-timeout"]?.source == "default")
    }

    @Test("a socket-activated agent without a flag exits when idle for config.toml's idle-timeout, as the file says now")
    func theFileDecidesTheIdleExit() throws {
        let harness = try AgentHarness()
        // 0: never. The agent must still be there after the status call below
        // and the 2 s it takes to notice the next edit.
        try writeConfig("[agent]\nidle-timeout = 0\n", for: harness)
        let path = harness.home + "/activated.sock"
        // systemd-socket-activate passes on only the variables -E names.
        let passed = ["HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"].flatMap { ["-E", $0] }
        let activator = try RunningProcess("/usr/bin/systemd-socket-activate",
                                           ["-l", path] + passed + [try ProgramPaths.built("passkey-agent"), "--foreground"],
                                           environment: harness.environment, directory: harness.home, name: "activate")
        defer { activator.stop(signal: SIGKILL) }
        // It says so after listen(2); the file already exists after bind(2),
        // and a client that connects in between is refused.
        try activator.waitUntil("systemd-socket-activate listens") { activator.standardError.contains("Listening on \(path)") }
        let status = try harness.passkey(["status"], extraEnvironment: ["PASSKEY_AGENT_SOCK": path])
        #expect(status.standardOutput.contains("setting: agent.idle-timeout = 0 (never)  (config.toml)"), "\(status.standardOutput)\(status.standardError)")
        #expect(activator.poll() == nil, "idle-timeout = 0: the agent stays")

        // systemd-socket-activate exec'd the agent: the process ends when the agent exits.
        try writeConfig("[agent]\nidle-timeout = 1\n", for: harness)
        #expect(activator.waitForExit(timeout: 60) == 0, "the agent exits, idle for the file's 1 s: \(activator.standardError)")
        #expect(activator.standardError.contains("idle for 1 s with no client: exiting"))
    }
}
