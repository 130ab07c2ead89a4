import Foundation
import Testing
import TestSupport

/// The real `passkey-devserver` (the harness's `DevServerProgram`: its output
/// in `<directory>/<name>.stdout` and `.stderr`), with its one start-up line
/// parsed into a harness, and waits that keep the test's task off the blocking calls.
package final class DevServerProcess: @unchecked Sendable {
    // @unchecked: `startup` is written once, by `waitForStartup`, before any test reads it.
    package let server: DevServerProgram
    package var process: RunningProcess { server.process }
    /// The start-up line, parsed.
    package private(set) var startup: [String: Any] = [:]
    package private(set) var startupLine = ""

    package struct Failure: Error, CustomStringConvertible { package var description: String }

    /// Starts the executable at once.
    package init(arguments: [String], directory: String, name: String) throws {
        server = try DevServerProgram(arguments: arguments, directory: directory, name: name)
    }

    package var stderrText: String { process.standardError }

    /// Waits for the first stdout line and reads the server's address and keys from it.
    package func waitForStartup() async throws -> DevServerHarness {
        let server = self.server
        startupLine = try await onOwnThread { try server.waitForStartupLine() }
        startup = try #require(try JSONSerialization.jsonObject(with: Data(startupLine.utf8)) as? [String: Any])
        return try DevServerHarness(
            apiURL: try #require(startup["apiUrl"] as? String), apiKey: try #require(startup["apiKey"] as? String),
            apiSecret: try #require(startup["apiSecret"] as? String), rpId: try #require(startup["rpId"] as? String),
            origin: try #require((startup["origins"] as? [String])?.first))
    }

    /// Sends SIGTERM and waits; returns the exit status and whatever reached stdout after the start-up line.
    package func terminate() async throws -> (status: Int32, laterOutput: String) {
        let process = self.process
        let status = try await onOwnThread { process.stop(signal: SIGTERM) }
        return (status, server.laterOutput)
    }

    /// Waits for a process that is expected to exit on its own.
    package func waitForExit() async throws -> Int32 {
        let process = self.process
        return try await onOwnThread {
            guard let status = process.waitForExit(timeout: 30) else {
                throw Failure(description: "passkey-devserver did not exit within 30 s; stderr: \(process.standardError)")
            }
            return status
        }
    }
}
