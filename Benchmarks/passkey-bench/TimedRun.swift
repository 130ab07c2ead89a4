import Harness

extension ChildProcess {
    /// Runs the program to completion, output to /dev/null: how long that
    /// took from spawn to exit (as a shell's `time` sees it), the CPU time it
    /// used, and its exit status.
    static func timedRun(_ path: String, _ arguments: [String], environment: [String: String])
        throws(BenchError) -> (nanoseconds: Int64, cpuNanoseconds: Int64, status: Int32) {
        let clock = ContinuousClock()
        let start = clock.now
        let process: ChildProcess
        do { process = try spawn(path, arguments, environment: environment) } catch {
            _ = try Programs.built(path)  // a missing program says how to get it
            throw .stepFailed("starting \(path)", reason: error.description)
        }
        let (status, cpu) = process.waitWithUsage()
        return ((clock.now - start).nanoseconds, cpu, status)
    }
}
