import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A process's memory as the kernel counts it, from /proc/PID/status:
/// what is resident now (VmRSS) and the most it has been (VmHWM).
struct ProcessMemory: Sendable {
    var residentBytes: Double
    var peakResidentBytes: Double

    /// Nil when the process is gone or the file does not say.
    static func of(_ pid: pid_t) -> ProcessMemory? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/status") else { return nil }
        var fields: [String: Double] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            // "VmRSS:\t   12345 kB"
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            guard name == "VmRSS" || name == "VmHWM" else { continue }
            let value = line[line.index(after: colon)...].split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                .flatMap { Double($0) }
            if let value { fields[name] = value * 1024 }
        }
        guard let resident = fields["VmRSS"], let peak = fields["VmHWM"] else { return nil }
        return ProcessMemory(residentBytes: resident, peakResidentBytes: peak)
    }
}
