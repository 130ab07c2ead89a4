import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// config.toml reaches the running agent: on change and on SIGHUP; what it
/// ignores is said with the line; a broken edit keeps the settings in force.
@Suite(.ownThreads) struct ConfigReloadTests {
    private func writeConfig(_ text: String, for harness: AgentHarness) throws {
        let directory = harness.environment["XDG_CONFIG_HOME"]! + "/passkey-agent"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Written aside and renamed, as editors do: the agent sees a new inode.
        try text.write(toFile: directory + "/config.toml", atomically: true, encoding: .utf8)
        chmod(directory + "/config.toml", 0o600)
    }

    private func status(_ harness: AgentHarness) throws -> [String: Any] {
        try #require(try harness.connect().call(1, "agent.status").result)
    }

    private func showsVirtualDevice(_ status: [String: Any]) -> Bool {
        ((status["devices"] as? [[String: Any]]) ?? []).contains { $0["path"] as? String == "virtual" }
    }

    @Test func aChangedFileIsReadWithoutARestart() throws {
        let harness = try AgentHarness()
        let agent = try harness.start()
        #expect(!showsVirtualDevice(try status(harness)))
        try writeConfig("[device]\ndefault = \"virtual\"\n", for: harness)
        try agent.waitUntil("the agent reads the new config.toml") { (try? showsVirtualDevice(status(harness))) == true }
        #expect(try status(harness)["configProblems"] == nil)
    }

    @Test func unknownKeysAreReportedWithTheirLine() throws {
        let harness = try AgentHarness()
        try writeConfig("[agent]\nidle-timout = 60\n", for: harness)
        let agent = try harness.start()
        let problems = try #require(try status(harness)["configProblems"] as? [String])
        #expect(problems.count == 1)
        #expect(problems.first?.hasSuffix("config.toml line 2: unknown key `idle-timout` in [agent] (did you mean `idle-timeout`?); ignored") == true,
                "\(problems)")
        #expect(agent.standardError.contains("line 2: unknown key `idle-timout`"))
        let shown = try harness.passkey(["status"])
        #expect(shown.standardOutput.contains("config: ") && shown.standardOutput.contains("idle-timout"), "\(shown.standardOutput)")
    }

    @Test func aBrokenEditKeepsTheSettingsInForceAndSIGHUPReadsAgain() throws {
        let harness = try AgentHarness()
        try writeConfig("[device]\ndefault = \"virtual\"\n", for: harness)
        let agent = try harness.start()
        #expect(showsVirtualDevice(try status(harness)))

        try writeConfig("[device]\ndefault = \"virtual\n", for: harness)
        kill(agent.pid, SIGHUP)
        try agent.waitUntil("the agent reports the broken file") {
            ((try? status(harness))?["configProblems"] as? [String])?.first?.contains("line 2: unterminated string") == true
        }
        #expect(showsVirtualDevice(try status(harness)), "the settings read before stay in force")

        try writeConfig("[device]\n", for: harness)
        kill(agent.pid, SIGHUP)
        try agent.waitUntil("the agent reads the fixed file") {
            guard let now = try? status(harness) else { return false }
            return now["configProblems"] == nil && !showsVirtualDevice(now)
        }
        #expect(agent.poll() == nil, "SIGHUP must not stop the agent")
    }
}
