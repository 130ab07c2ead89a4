import Foundation
import Testing

/// The real `passkey-devserver` executable from the build products directory
/// (beside the test bundle), started as a child process.
final class DevServerProcess: @unchecked Sendable {
    // @unchecked: the Process and its pipes are touched by one test at a time.
    let process = Process()
    let stdout = Pipe()
    let stderrPath: String
    /// The start-up line, parsed.
    private(set) var startup: [String: Any] = [:]
    private(set) var startupLine = ""

    struct Failure: Error, CustomStringConvertible { var description: String }

    static func executable() throws -> URL {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidate = testBinary.deletingLastPathComponent().appendingPathComponent("passkey-devserver")
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
            throw Failure(description: "passkey-devserver is not built at \(candidate.path); run `swift build --product passkey-devserver`")
        }
        return candidate
    }

    init(arguments: [String], stderrPath: String) throws {
        self.stderrPath = stderrPath
        process.executableURL = try Self.executable()
        process.arguments = arguments
        process.standardOutput = stdout
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
    }

    var stderrText: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Starts the process and reads its first stdout line.
    func start() async throws -> DevServerHarness {
        try process.run()
        let line = try await Self.offPool { [stdout] in
            var bytes: [UInt8] = []
            while !bytes.contains(UInt8(ascii: "\n")) {
                let chunk = stdout.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                bytes += chunk
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        guard line.hasSuffix("\n"), line.filter({ $0 == "\n" }).count == 1 else {
            throw Failure(description: "no start-up line (got \(line.debugDescription)); stderr: \(stderrText)")
        }
        startupLine = String(line.dropLast())
        startup = try #require(try JSONSerialization.jsonObject(with: Data(startupLine.utf8)) as? [String: Any])
        return try DevServerHarness(
            apiURL: try #require(startup["apiUrl"] as? String), apiKey: try #require(startup["apiKey"] as? String),
            apiSecret: try #require(startup["apiSecret"] as? String), rpId: try #require(startup["rpId"] as? String),
            origin: try #require((startup["origins"] as? [String])?.first))
    }

    /// Sends SIGTERM and waits; returns the exit status and whatever else reached stdout.
    func terminate() async throws -> (status: Int32, laterOutput: String) {
        process.terminate()
        return try await Self.offPool { [process, stdout] in
            process.waitUntilExit()
            let rest = stdout.fileHandleForReading.readDataToEndOfFile()
            return (process.terminationStatus, String(decoding: rest, as: UTF8.self))
        }
    }

    /// Waits for a process that is expected to exit on its own.
    func waitForExit() async throws -> Int32 {
        try await Self.offPool { [process] in
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// Blocking work on a thread of its own, off the Swift concurrency pool.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await onOwnThread(work)
    }
}
