#if canImport(Glibc)
import Glibc
#endif

/// The agent's open-file limit. systemd and most shells start processes with
/// a soft limit of 1024, below what the connection limit needs; the hard
/// limit (often 524288) is ours to take, as servers do at start.
public enum DescriptorLimit {
    /// Raises the soft RLIMIT_NOFILE to the hard one; returns the soft limit in force.
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        // RLIM_INFINITY and other huge values do not fit an Int: treat them as plenty.
        return Int(exactly: limit.rlim_cur) ?? Int.max
    }
}
