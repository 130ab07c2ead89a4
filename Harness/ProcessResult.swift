import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// What a finished program printed and how it ended.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let standardOutput: String
    public let standardError: String

    /// Runs `executable` to completion (killing it after `timeout` seconds), with
    /// stdin from a file holding `standardInput` (or /dev/null) and output
    /// captured through files in `scratch`, so large outputs cannot dead-lock a pipe.
    public static func run(_ executable: String, _ arguments: [String], standardInput: String?,
                           environment: [String: String], scratch: String,
                           timeout: TimeInterval) throws(HarnessError) -> ProcessResult {
        let directory = try TemporaryDirectory.make(prefix: "run", in: scratch)
        defer { TemporaryDirectory.remove(directory) }
        var inputPath = "/dev/null"
        if let standardInput {
            inputPath = directory + "/stdin"
            try TextFile.write(standardInput, to: inputPath)
        }
        let outputPath = directory + "/stdout"
        let errorPath = directory + "/stderr"
        let process = try ChildProcess.spawn(executable, arguments, environment: environment, standardInput: inputPath,
                                             standardOutput: outputPath, standardError: errorPath)
        guard let status = process.waitForExit(within: .seconds(timeout)) else {
            kill(process.pid, SIGKILL)
            process.wait()
            throw HarnessError("\(executable) \(arguments.joined(separator: " ")) did not finish within \(Int(timeout)) s")
        }
        return ProcessResult(status: status, standardOutput: TextFile.read(outputPath), standardError: TextFile.read(errorPath))
    }
}
