import Foundation
import Testing
import TestSupport

/// A huge idle timeout in config.toml (`[agent] idle-timeout =
/// 9223372036854775807`, read at start or reloaded while unlocked) used to
/// trap inside the agent's idle timer at the first unlock: the deadline
/// `now + timeout` is past what the concurrency runtime can sleep until.
/// It is cut to ten years (what `--idle-timeout` accepts at most).
@Suite(.ownThreads) struct IdleTimeoutThroughAgentTests {
    static func expectAlive(_ agent: VaultAgent, _ what: String) throws {
        try OutsideNumbersThroughAgentTests.expectAlive(agent, what)
    }

    static func writeConfig(_ agent: VaultAgent, _ text: String) throws {
        let directory = agent.harness.home + "/config/passkey-agent"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/config.toml"))
    }

    static func idleLockSeconds(_ agent: VaultAgent) throws -> Int? {
        let status = try agent.passkey(["vault", "status", "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any]
        return report?["idleLockSeconds"] as? Int
    }

    /// Ten years: the most `--idle-timeout` takes, and where a longer config value is cut.
    static let maximumIdleSeconds = 10 * 365 * 86_400

    @Test("[agent] idle-timeout = 9223372036854775807 in config.toml: unlock works, the agent keeps answering, the timeout is cut to ten years")
    func hugeIdleTimeoutInConfig() throws {
        let agent = try VaultAgent()
        try Self.writeConfig(agent, "[agent]\nidle-timeout = 9223372036854775807\n")
        try agent.start()
        try agent.initializeVault()
        try agent.unlock()
        try Self.expectAlive(agent, "an unlock with a huge idle timeout")
        try agent.put("work", VaultAgent.document(access: "AT-idle", refresh: nil, expiresIn: 3600, endpoint: "https://id.example.org/t"))
        #expect(try agent.passkey(["token", "get", "work"]).standardOutput == "AT-idle\n")
        #expect(try Self.idleLockSeconds(agent) == Self.maximumIdleSeconds)
    }

    @Test("the same value written into config.toml while the vault is unlocked: the agent reloads it and keeps answering")
    func hugeIdleTimeoutReloaded() throws {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        #expect(try Self.idleLockSeconds(agent) == 900)
        try Self.writeConfig(agent, "[agent]\nidle-timeout = 9223372036854775807\n")
        try agent.harness.process?.waitUntil("the agent reloads config.toml", timeout: 30) {
            (try? Self.idleLockSeconds(agent)) == Self.maximumIdleSeconds || agent.harness.process?.poll() != nil
        }
        try Self.expectAlive(agent, "reloading a huge idle timeout while unlocked")
        #expect(try Self.idleLockSeconds(agent) == Self.maximumIdleSeconds)
    }
}
