import Foundation
import Testing
import TestSupport

/// The stale-file cleanup reads a large directory without reading past
/// readdir's records (see DirectoryEntries).
///
/// The over-read it replaced touched bytes inside opendir's own heap buffer
/// or just past it, which nothing notices without a sanitizer: so this test
/// builds SecureFiles' real sources with `swiftc -sanitize=address` into a
/// small program and runs it over 3,000 stale temporary files — the directory
/// size where the old `withUnsafeBytes(of: entry.pointee.d_name)` read made
/// AddressSanitizer abort with a heap-buffer-overflow READ of size 256. It
/// takes a few seconds, most of it the compile.
@Suite(.ownThreads) struct DirectoryReadSanitizerTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/Wire/SecureFiles").standardized.path

    @Test func removingStaleFilesFromALargeDirectoryIsCleanUnderAddressSanitizer() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("asan-readdir-\(UUID())").path
        let stateDirectory = scratch + "/state"
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }

        // Names of every length our pattern allows, so records end at every offset in the buffer.
        let count = 3_000
        let old = Date(timeIntervalSinceNow: -60)
        for index in 0..<count {
            let path = stateDirectory + "/.state\(String(repeating: "x", count: index % 40)).json.tmp-\(index)-\(String(index, radix: 16))"
            #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]))
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
        }

        let main = scratch + "/main.swift"
        try "print(\"removed\", SecureFile.removeStaleTemporaryFiles(in: CommandLine.arguments[1]))\n"
            .write(toFile: main, atomically: true, encoding: .utf8)
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.sources).filter { $0.hasSuffix(".swift") }.sorted()
        #expect(files.contains("DirectoryEntries.swift") && files.contains("TemporaryName.swift"), "\(files)")
        let program = scratch + "/probe"
        let build = try Self.run("/usr/bin/env", ["swiftc", "-sanitize=address", "-Onone", "-module-name", "ReaddirProbe",
                                                  "-o", program, main] + files.map { Self.sources + "/" + $0 })
        try #require(build.status == 0, "swiftc failed:\n\(build.output)")

        let probe = try Self.run(program, [stateDirectory], environment: ["ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0"])
        #expect(!probe.output.contains("AddressSanitizer"), "\(probe.output)")
        #expect(probe.status == 0, "\(probe.output)")
        #expect(probe.output.contains("removed \(count)\n"), "\(probe.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: stateDirectory) == [])
    }

    /// Runs a program to its end; its status and what it wrote to stdout and stderr.
    static func run(_ executable: String, _ arguments: [String],
                    environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
