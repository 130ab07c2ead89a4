import Foundation
import Testing
import TestSupport

/// The real `passkey-devserver` executable from the build products directory,
/// run in the background by TestSupport's `RunningProcess` (its output in
/// `<directory>/<name>.stdout` and `.stderr`), with its one start-up line
/// parsed into a harness.
final class DevServerProcess: @unchecked Sendable {
    // @unchecked: `startup` is written once, by `waitForStartup`, before any test reads it.
    let process: RunningProcess
    /// The start-up line, parsed.
    private(set) var startup: [String: Any] = [:]
    private(set) var startupLine = ""

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Starts the executable at once.
    init(arguments: [String], directory: String, name: String) throws {
        process = try RunningProcess(try PCSCHarness.productPath("passkey-devserver"), arguments,
                                     environment: ProcessInfo.processInfo.environment, directory: directory, name: name)
    }

    var stderrText: String { process.standardError }

    /// Waits for the first stdout line and reads the server's address and keys from it.
    func waitForStartup() async throws -> DevServerHarness {
        let process = self.process
        try await onOwnThread { try process.waitUntil("the start-up line") { process.standardOutput.contains("\n") } }
        let output = process.standardOutput
        guard let newline = output.firstIndex(of: "\n") else {
            throw Failure(description: "no start-up line (got \(output.debugDescription)); stderr: \(stderrText)")
        }
        startupLine = String(output[..<newline])
        startup = try #require(try JSONSerialization.jsonObject(with: Data(startupLine.utf8)) as? [String: Any])
        return try DevServerHarness(
            apiURL: try #require(startup["apiUrl"] as? String), apiKey: try #require(startup["apiKey"] as? String),
            apiSecret: try #require(startup["apiSecret"] as? String), rpId: try #require(startup["rpId"] as? String),
            origin: try #require((startup["origins"] as? [String])?.first))
    }

    /// Sends SIGTERM and waits; returns the exit status and whatever reached stdout after the start-up line.
    func terminate() async throws -> (status: Int32, laterOutput: String) {
        let process = self.process
        let status = try await onOwnThread { process.stop(signal: SIGTERM) }
        let output = process.standardOutput
        let later = output.firstIndex(of: "\n").map { String(output[output.index(after: $0)...]) } ?? output
        return (status, later)
    }

    /// Waits for a process that is expected to exit on its own.
    func waitForExit() async throws -> Int32 {
        let process = self.process
        return try await onOwnThread {
            guard let status = process.waitForExit(timeout: 30) else {
                throw Failure(description: "passkey-devserver did not exit within 30 s; stderr: \(process.standardError)")
            }
            return status
        }
    }
}
