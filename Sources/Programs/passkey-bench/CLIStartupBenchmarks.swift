import Harness

/// Issue 4: `passkey status` as a whole process — spawn, dynamic loading,
/// the Swift runtime, argument parsing, connecting, one request, printing,
/// exit — beside `ssh-add -l` against a running ssh-agent, the floor for "a
/// command-line program asks a per-user agent".
///
/// The commands take turns (one run of each, then the next round), so a
/// neighbour's burst of load falls on all of them alike. Each run is timed
/// twice: wall time from posix_spawn to waitpid (what a person waits), and
/// the CPU time the process used (wait4's rusage, all threads) — the steadier
/// figure on a busy machine.
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

    private struct Command {
        var key: String
        var label: String
        var path: String
        var arguments: [String]
        var environment: [String: String]
        var wall: [Int64] = []
        var cpu: [Int64] = []
    }

    func run(agent: AgentEndpoint) throws(BenchError) -> GroupReport {
        var report = GroupReport(group: "cli", title: "cli (issue 4): whole process, spawn to exit")
        let sshAgent = try RunningSSHAgent(sshAgent: try programs.required("ssh-agent"),
                                           sshAdd: try programs.required("ssh-add"),
                                           sshKeygen: try programs.required("ssh-keygen"))
        defer { sshAgent.stop() }

        var commands = [
            Command(key: "process.floor", label: "spawn + exit of /bin/true (the floor)",
                    path: try programs.required("true"), arguments: [], environment: agent.environment),
            Command(key: "cli.passkeyStatus", label: "passkey status (agent running)",
                    path: programs.passkey, arguments: ["status"], environment: agent.environment),
            Command(key: "cli.sshAddList", label: "ssh-add -l (ssh-agent running, 1 key)",
                    path: try programs.required("ssh-add"), arguments: ["-l"], environment: sshAgent.environment),
        ]
        for variant in variants {
            commands.append(Command(key: "cli.variant.\(variant.name)", label: "passkey status [\(variant.name)]",
                                    path: variant.path, arguments: ["status"], environment: agent.environment))
        }

        for round in 0..<(warmUp + runs) {
            for index in commands.indices {
                let command = commands[index]
                let run = try ChildProcess.timedRun(command.path, command.arguments, environment: command.environment)
                guard run.status == 0 else {
                    throw .stepFailed(([command.path] + command.arguments).joined(separator: " "),
                                      reason: "exited \(run.status), expected 0")
                }
                if round >= warmUp {
                    commands[index].wall.append(run.nanoseconds)
                    commands[index].cpu.append(run.cpuNanoseconds)
                }
            }
        }

        for command in commands {
            report.figures.append(.time(command.key, command.label, Samples(nanoseconds: command.wall)))
            report.figures.append(.time(command.key + ".cpu", "  CPU time (user + system)", Samples(nanoseconds: command.cpu)))
        }
        func median(_ key: String, cpu: Bool = false) -> Double {
            let command = commands.first { $0.key == key }
            return Double(Samples(nanoseconds: (cpu ? command?.cpu : command?.wall) ?? []).summary?.median ?? 0)
        }
        let ratio = median("cli.passkeyStatus") / max(1, median("cli.sshAddList"))
        let cpuRatio = median("cli.passkeyStatus", cpu: true) / max(1, median("cli.sshAddList", cpu: true))
        report.figures.append(.ratio("ratio.cli", "passkey status / ssh-add -l (wall)", ratio))
        report.figures.append(.ratio("ratio.cliCPU", "passkey status / ssh-add -l (CPU)", cpuRatio))
        for variant in variants {
            report.figures.append(.ratio("ratio.cli.variant.\(variant.name)", "passkey status [\(variant.name)] / ssh-add -l (wall)",
                                         median("cli.variant.\(variant.name)") / max(1, median("cli.sshAddList"))))
        }
        report.aims = [
            Aim(name: "passkey status / ssh-add -l", target: "≤ 1.5×", measured: Report.ratio(ratio), met: ratio <= 1.5),
        ]
        report.notes = ["\(runs) runs of each command, taking turns, after \(warmUp) warm-up rounds; output to /dev/null"]
        return report
    }
}
