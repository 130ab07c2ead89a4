import FoundationEssentials

/// The `passkey-devserver` program running in the background (where
/// `DevServer.RunningDevServer` is the server in the caller's own process):
/// its output in `<directory>/<name>.stdout` and `.stderr`, and the one JSON
/// line it prints once it listens (apiUrl, apiKey, apiSecret, rpId, origins).
public final class DevServerProgram: Sendable {
    public let process: RunningProcess

    /// Starts the `passkey-devserver` built beside the running executable.
    public init(arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
                directory: String, name: String) throws(HarnessError) {
        process = try RunningProcess(try ProgramPaths.built("passkey-devserver"), arguments,
                                     environment: environment, directory: directory, name: name)
    }

    /// Waits until the start-up line is out and returns it (without its newline).
    public func waitForStartupLine() throws(HarnessError) -> String {
        let process = self.process
        try process.waitUntil("the devserver prints its start-up line") { process.standardOutput.contains("\n") }
        return String(process.standardOutput.prefix { $0 != "\n" })
    }

    /// What reached stdout after the start-up line (all of it, if there is no such line).
    public var laterOutput: String {
        let output = process.standardOutput
        return output.firstIndex(of: "\n").map { String(output[output.index(after: $0)...]) } ?? output
    }
}
