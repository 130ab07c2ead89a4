import Harness

/// Issues 4 and 15: `passkey status` and `passkey token get ACCOUNT` as whole
/// processes — spawn, dynamic loading, the Swift runtime, argument parsing,
/// connecting, one request, printing, exit — beside `ssh-add -l` against a
/// running ssh-agent, the floor for "a command-line program asks a per-user
/// agent". `token get` reads a stored token from the unlocked vault (no refresh).
///
/// The commands take turns (`TakingTurns`), each timed in wall and CPU time.
struct CLIStartupBenchmarks {
    /// Another build of `passkey` to time beside the main one (`--cli-variant NAME=PATH`).
    struct Variant {
        var name: String
        var path: String
    }

    var runs: Int
    var warmUp: Int
    var programs: Programs
    var variants: [Variant]
    /// Whether the agent is the benchmark's own (then it gets a vault and a
    /// token for `token get`); never touch the vault of an agent given with --agent-socket.
    var ownAgent: Bool

    /// The ratio to `ssh-add -l` issue 15 asks of the scripted verbs.
    static let aim = 1.2
    static let account = "bench-cli"

    func run(agent: AgentEndpoint) throws(BenchError) -> GroupReport {
        var report = GroupReport(group: "cli", title: "cli (issues 4, 15): whole process, spawn to exit")
        let sshAgent = try RunningSSHAgent(sshAgent: try programs.required("ssh-agent"),
                                           sshAdd: try programs.required("ssh-add"),
                                           sshKeygen: try programs.required("ssh-keygen"))
        defer { sshAgent.stop() }

        var commands = [
            TimedCommand(key: "process.floor", label: "spawn + exit of /bin/true (the floor)",
                         path: try programs.required("true"), arguments: [], environment: agent.environment),
            TimedCommand(key: "cli.passkeyStatus", label: "passkey status (agent running)",
                         path: programs.passkey, arguments: ["status"], environment: agent.environment),
            TimedCommand(key: "cli.sshAddList", label: "ssh-add -l (ssh-agent running, 1 key)",
                         path: try programs.required("ssh-add"), arguments: ["-l"], environment: sshAgent.environment),
        ]
        if ownAgent {
            try storeToken(agent: agent)
            commands.append(TimedCommand(key: "cli.passkeyTokenGet", label: "passkey token get ACCOUNT (unlocked vault, stored token)",
                                         path: programs.passkey, arguments: ["token", "get", Self.account], environment: agent.environment))
        } else {
            report.unavailable.append("passkey token get: the vault of an agent given with --agent-socket is left alone")
        }
        for variant in variants {
            commands.append(TimedCommand(key: "cli.variant.\(variant.name)", label: "passkey status [\(variant.name)]",
                                         path: variant.path, arguments: ["status"], environment: agent.environment))
        }

        try TakingTurns.run(&commands, runs: runs, warmUp: warmUp)
        report.figures += commands.flatMap(\.figures)
        func median(_ key: String, cpu: Bool = false) -> Double {
            commands.first { $0.key == key }?.median(cpu: cpu) ?? 0
        }
        let floor = max(1, median("cli.sshAddList"))
        let cpuFloor = max(1, median("cli.sshAddList", cpu: true))
        let measured = [("cli.passkeyStatus", "ratio.cli", "passkey status"),
                        ("cli.passkeyTokenGet", "ratio.cliTokenGet", "passkey token get")]
        for (key, ratioKey, name) in measured where commands.contains(where: { $0.key == key }) {
            let ratio = median(key) / floor
            report.figures.append(.ratio(ratioKey, "\(name) / ssh-add -l (wall)", ratio))
            report.figures.append(.ratio(ratioKey + "CPU", "\(name) / ssh-add -l (CPU)", median(key, cpu: true) / cpuFloor))
            report.aims.append(Aim(name: "\(name) / ssh-add -l", target: "≤ \(Self.aim)×", measured: Report.ratio(ratio),
                                   met: ratio <= Self.aim))
        }
        for variant in variants {
            report.figures.append(.ratio("ratio.cli.variant.\(variant.name)", "passkey status [\(variant.name)] / ssh-add -l (wall)",
                                         median("cli.variant.\(variant.name)") / floor))
        }
        report.notes = ["\(runs) runs of each command, taking turns, after \(warmUp) warm-up rounds; output to /dev/null",
                        "token get: a vault opened by the agent's software authenticator (fido2 slot), one account whose access token is valid for years"]
        return report
    }

    /// A vault opened by the agent's software authenticator, holding one
    /// long-lived token set (as the vault group stores them), so `token get`
    /// answers from the vault without a refresh.
    private func storeToken(agent: AgentEndpoint) throws(BenchError) {
        let client = try LineClient.agent(at: agent.socketPath)
        try client.call(Array(#"{"jsonrpc":"2.0","id":1,"method":"vault.init","params":{"slot":"fido2","device":{"device":"virtual"}}}"#.utf8)
                        + [UInt8(ascii: "\n")], "vault.init (fido2)")
        try client.call(try AgentRequest.line(id: 1, "token.put", SyntheticTokens.PutParams(
            account: Self.account, token: SyntheticTokens.document(0, expiresIn: SyntheticTokens.longLife))), "token.put")
    }
}
