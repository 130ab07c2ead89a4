import Harness

/// Whole-process commands timed taking turns — one run of each, then the
/// next round — so a neighbour's burst of load falls on all of them alike.
/// Each run is timed twice: wall time from posix_spawn to waitpid (what a
/// person waits), and the CPU time the process used (wait4's rusage, all
/// threads), the steadier figure on a busy machine. Output goes to /dev/null;
/// a run that does not exit 0 stops the group.
struct TimedCommand {
    var key: String
    var label: String
    var path: String
    var arguments: [String]
    var environment: [String: String]
    var wall: [Int64] = []
    var cpu: [Int64] = []

    init(key: String, label: String, path: String, arguments: [String], environment: [String: String]) {
        self.key = key
        self.label = label
        self.path = path
        self.arguments = arguments
        self.environment = environment
    }

    /// The median of the kept runs, wall or CPU time, in nanoseconds (0 without runs).
    func median(cpu: Bool = false) -> Double {
        Double(Samples(nanoseconds: cpu ? self.cpu : wall).summary?.median ?? 0)
    }

    /// Both figures of this command, for a report.
    var figures: [Figure] {
        [.time(key, label, Samples(nanoseconds: wall)), .time(key + ".cpu", "  CPU time (user + system)", Samples(nanoseconds: cpu))]
    }
}

enum TakingTurns {
    /// `warmUp` untimed rounds, then `runs` timed ones.
    static func run(_ commands: inout [TimedCommand], runs: Int, warmUp: Int) throws(BenchError) {
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
    }
}
