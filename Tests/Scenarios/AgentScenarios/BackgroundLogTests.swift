import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `eval "$(passkey-agent)"`: the detached agent's stderr goes to a log file
/// always — `$XDG_STATE_HOME/passkey-agent/agent.log`, creating the missing
/// directories 0700 (a fresh account has no ~/.local/state), else
/// `agent.log` beside the socket — so its last words are kept.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct BackgroundLogTests {
    /// Starts the agent in the background with `stateHome`, stops it with
    /// SIGTERM, and returns the log file's path once it holds the shutdown line.
    private func runDetached(stateHome: String, harness: AgentHarness) throws -> String? {
        let started = try harness.passkeyAgent([], extraEnvironment: ["XDG_STATE_HOME": stateHome])
        #expect(started.status == 0, "\(started.standardError)")
        let pidText = try #require(started.standardOutput.split(separator: "\n")
            .first { $0.hasPrefix("echo passkey-agent pid ") }?.dropFirst("echo passkey-agent pid ".count).dropLast())
        let pid = try #require(pid_t(String(pidText)))
        let agent = try #require(DetachedProcess(pid: pid, environmentEntry: "XDG_STATE_HOME=\(stateHome)"),
                                 "pid \(pid) is the agent this test started")
        defer { agent.signal(SIGKILL) }
        var client: LineClient?
        for _ in 0..<500 where client == nil {
            client = try? harness.connect()
            if client == nil { usleep(20_000) }
        }
        #expect(client != nil, "the background agent answers")
        #expect(agent.signal(SIGTERM))
        for path in [stateHome + "/passkey-agent/agent.log", harness.runtimeDirectory + "/passkey-agent/agent.log"] {
            for _ in 0..<500 {
                if let log = try? String(contentsOfFile: path, encoding: .utf8), log.contains("SIGTERM: shutting down") { return path }
                if FileManager.default.fileExists(atPath: path) { usleep(20_000) } else { break }
            }
        }
        return nil
    }

    @Test func aMissingStateDirectoryIsCreatedAndLoggedTo() throws {
        let harness = try AgentHarness()
        let stateHome = harness.home + "/fresh/account/.local/state"
        let log = try runDetached(stateHome: stateHome, harness: harness)
        #expect(log == stateHome + "/passkey-agent/agent.log")
        #expect(AgentHarness.mode(stateHome + "/passkey-agent") == 0o700)
        #expect(AgentHarness.mode(stateHome) == 0o700)
        #expect(AgentHarness.mode(stateHome + "/passkey-agent/agent.log") == 0o600)
    }

    @Test func aStateDirectoryThatCannotBeMadeFallsBackBesideTheSocket() throws {
        let harness = try AgentHarness()
        // A regular file where a directory should be: nothing can be created under it.
        let blocker = harness.home + "/not-a-directory"
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data()))
        let log = try runDetached(stateHome: blocker + "/state", harness: harness)
        #expect(log == harness.runtimeDirectory + "/passkey-agent/agent.log")
    }
}

extension AgentHarness {
    /// Runs `passkey-agent` itself (not --foreground) with this harness's environment.
    func passkeyAgent(_ arguments: [String], extraEnvironment: [String: String]) throws -> ProcessResult {
        var environment = self.environment
        for (key, value) in extraEnvironment { environment[key] = value }
        return try ProcessResult.run(try ProgramPaths.built("passkey-agent"), arguments, standardInput: nil,
                                     environment: environment, scratch: home, timeout: 30)
    }
}
