import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The hand-started agent keeps ssh-agent(1)'s habits: `eval
/// "$(passkey-agent)"` exports PASSKEY_AGENT_SOCK and PASSKEY_AGENT_PID,
/// `eval "$(passkey-agent -k)"` stops that agent and unsets both, and `-s`
/// or `-c` choose Bourne or C shell syntax (by default C shell when $SHELL
/// ends in csh). Each script below runs in a real /bin/sh.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct SshAgentConventionsTests {
    private func shell(_ script: String, _ harness: AgentHarness, extra: [String: String] = [:]) throws -> ProcessResult {
        var environment = harness.environment
        environment["PATH"] = ProgramPaths.ownDirectoryOfBuiltPrograms + ":/usr/bin:/bin"
        environment["SHELL"] = "/bin/sh"
        for (key, value) in extra { environment[key] = value }
        return try ProcessResult.run("/bin/sh", ["-c", script], standardInput: nil, environment: environment,
                                     scratch: harness.home, timeout: 60)
    }

    /// The agent `pid` names if it still runs and is this harness's (its
    /// HOME is the harness's): the pid may have been reused since it ended.
    private func agent(_ pid: pid_t, _ harness: AgentHarness) -> DetachedProcess? {
        DetachedProcess(pid: pid, environmentEntry: "HOME=\(harness.home)")
    }

    @Test("eval \"$(passkey-agent)\" exports the socket and the PID; eval \"$(passkey-agent -k)\" stops it and unsets both")
    func startAndStopFromAShell() throws {
        let harness = try AgentHarness()
        let script = """
        eval "$(passkey-agent)" >/dev/null || exit 10
        echo "sock=$PASSKEY_AGENT_SOCK"
        echo "pid=$PASSKEY_AGENT_PID"
        passkey status | head -n 1
        eval "$(passkey-agent -k)" || exit 11
        echo "after=${PASSKEY_AGENT_SOCK-unset},${PASSKEY_AGENT_PID-unset}"
        """
        let result = try shell(script, harness)
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("sock=\(harness.socketPath)"), "\(lines)")
        let pidLine = try #require(lines.first { $0.hasPrefix("pid=") })
        let pid = try #require(pid_t(pidLine.dropFirst(4)), "a PID: \(pidLine)")
        defer { agent(pid, harness)?.signal(SIGKILL) }
        #expect(lines.contains { $0.hasPrefix("agent: running (pid \(pid),") }, "the agent answering is the one named: \(lines)")
        #expect(lines.contains("passkey-agent pid \(pid) stopped"), "\(lines)")
        #expect(lines.contains("after=unset,unset"))
        let ended = agent(pid, harness)?.waitForEnd(timeout: 10) ?? true
        #expect(ended, "the agent named by PASSKEY_AGENT_PID ended")
    }

    @Test("-c prints C shell lines, -s Bourne lines; $SHELL ending in csh chooses C shell")
    func shellSyntax() throws {
        let harness = try AgentHarness()
        let cShell = try shell("passkey-agent -c --socket \"$HOME/c.sock\"", harness, extra: ["SHELL": "/bin/bash"])
        #expect(cShell.status == 0, "\(cShell.standardError)")
        let cLines = cShell.standardOutput.split(separator: "\n").map(String.init)
        #expect(cLines.first == "setenv PASSKEY_AGENT_SOCK \(harness.home)/c.sock;", "\(cLines)")
        let cPid = try #require(cLines.dropFirst().first.flatMap { line -> pid_t? in
            guard line.hasPrefix("setenv PASSKEY_AGENT_PID "), line.hasSuffix(";") else { return nil }
            return pid_t(line.dropFirst("setenv PASSKEY_AGENT_PID ".count).dropLast())
        }, "\(cLines)")
        defer { agent(cPid, harness)?.signal(SIGKILL) }
        let killed = try shell("passkey-agent -k", harness, extra: ["SHELL": "/usr/bin/tcsh", "PASSKEY_AGENT_PID": "\(cPid)"])
        #expect(killed.status == 0, "\(killed.standardError)")
        #expect(killed.standardOutput == "unsetenv PASSKEY_AGENT_SOCK;\nunsetenv PASSKEY_AGENT_PID;\necho passkey-agent pid \(cPid) stopped;\n")

        let bourne = try shell("passkey-agent -s --socket \"$HOME/s.sock\"", harness, extra: ["SHELL": "/bin/csh"])
        #expect(bourne.status == 0, "\(bourne.standardError)")
        let sLines = bourne.standardOutput.split(separator: "\n").map(String.init)
        #expect(sLines.first == "PASSKEY_AGENT_SOCK=\(harness.home)/s.sock; export PASSKEY_AGENT_SOCK;", "\(sLines)")
        let sPid = try #require(sLines.dropFirst().first.flatMap { line -> pid_t? in
            guard line.hasPrefix("PASSKEY_AGENT_PID="), let semicolon = line.firstIndex(of: ";") else { return nil }
            return pid_t(line[line.index(line.startIndex, offsetBy: "PASSKEY_AGENT_PID=".count)..<semicolon])
        }, "\(sLines)")
        defer { agent(sPid, harness)?.signal(SIGKILL) }
        #expect(try shell("passkey-agent -k -s", harness, extra: ["PASSKEY_AGENT_PID": "\(sPid)"]).standardOutput
            .hasPrefix("unset PASSKEY_AGENT_SOCK;\nunset PASSKEY_AGENT_PID;\n"))

        let both = try shell("passkey-agent -c -s", harness)
        #expect(both.status == 64, "-c and -s together are a usage error: \(both.standardError)")
    }

    @Test("a socket path with spaces and quotes comes back whole through eval")
    func aStrangePathIsQuoted() throws {
        let harness = try AgentHarness()
        let script = """
        eval "$(passkey-agent --socket "$HOME/it's a \\$HOME;path.sock")" >/dev/null || exit 10
        printf '%s\\n' "$PASSKEY_AGENT_SOCK"
        eval "$(passkey-agent -k)" >/dev/null
        """
        let result = try shell(script, harness)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == harness.home + "/it's a $HOME;path.sock\n", "\(result.standardOutput)")
    }

    @Test("-k sends no signal to a PID that is not a passkey-agent, nor without a good PID")
    func killChecksThePID() throws {
        let harness = try AgentHarness()
        let bystander = try RunningProcess("/bin/sleep", ["120"], environment: harness.environment,
                                           directory: harness.home, name: "sleep")
        defer { bystander.stop(signal: SIGKILL) }
        let refused = try shell("passkey-agent -k", harness, extra: ["PASSKEY_AGENT_PID": "\(bystander.pid)"])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("is not a passkey-agent"), "\(refused.standardError)")
        #expect(refused.standardOutput.isEmpty, "nothing to eval")
        #expect(bystander.poll() == nil, "the bystander still runs")

        let unset = try shell("unset PASSKEY_AGENT_PID; passkey-agent -k", harness)
        #expect(unset.status == 1)
        #expect(unset.standardError.contains("PASSKEY_AGENT_PID not set"))
        for bad in ["12abc", "-5", "0", "1", "99999999999999999999", ""] {
            let result = try shell("passkey-agent -k", harness, extra: ["PASSKEY_AGENT_PID": bad])
            #expect(result.status == 1, "\(bad)")
            #expect(result.standardError.contains("which is not a good PID"), "\(bad): \(result.standardError)")
        }
    }
}

extension ProgramPaths {
    /// Where `passkey` and `passkey-agent` are built, for a shell's PATH.
    static var ownDirectoryOfBuiltPrograms: String {
        let agent = (try? built("passkey-agent")) ?? ownDirectory + "/passkey-agent"
        return String(agent.dropLast("/passkey-agent".count))
    }
}
