import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The CPU time a process (all its threads) has used, from /proc/PID/stat.
/// A rate measured on a busy machine says little alone; CPU time per request
/// says what the agent itself spends, whatever the neighbours do.
enum ProcessCPUTime {
    /// User + system time in nanoseconds, or nil if the process is not readable.
    static func of(_ pid: pid_t) -> Int64? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        // The command name (field 2) is in parentheses and may contain spaces: count fields after the last ')'.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // Fields 14 (utime) and 15 (stime) of proc(5); fields[0] here is field 3.
        guard fields.count > 12, let user = Int64(fields[11]), let system = Int64(fields[12]) else { return nil }
        let ticksPerSecond = Int64(sysconf(Int32(_SC_CLK_TCK)))
        guard ticksPerSecond > 0 else { return nil }
        return (user + system) * (1_000_000_000 / ticksPerSecond)
    }
}
