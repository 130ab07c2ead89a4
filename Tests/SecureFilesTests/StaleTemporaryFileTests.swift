import Foundation
import Testing
import TestSupport
@testable import SecureFiles

/// A temporary file is stale when no writer holds its lock, whatever pid its
/// name carries: a pid is reused once its process is gone, a lock dies with
/// its holder (issue 30 suspected cleanup of trusting the pid).
@Suite(.ownThreads) struct StaleTemporaryFileTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stale-\(UUID())").path

    func make(_ name: String) throws -> String {
        let path = directory + "/" + name
        #expect(FileManager.default.createFile(atPath: path, contents: Data([1]), attributes: [.posixPermissions: 0o600]))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: path)
        return path
    }

    @Test("a file named with a live pid that is not its writer is removed; one a live writer holds stays, whatever its pid")
    func livePidsAreNotTrustedLocksAre() throws {
        try SecureDirectory.create(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Pids that are alive for the whole test and wrote nothing: ours and init's.
        let ours = try make(".state.json.tmp-\(getpid())-1a")
        let initProcess = try make(".state.json.tmp-1-2b")

        // A live writer in another process, holding the file's lock (util-linux
        // flock(1) takes it as SecureFile.write does); its name carries a pid
        // that is certainly gone: a child already reaped.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let held = try make(".state.json.tmp-\(gone.processIdentifier)-3c")
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        writer.arguments = ["--exclusive", held, "--command", "echo locked; cat > /dev/null"]
        let output = Pipe()
        let input = Pipe()
        writer.standardOutput = output
        writer.standardInput = input
        try writer.run()
        defer {
            try? input.fileHandleForWriting.close()
            writer.waitUntilExit()
        }
        // Awaited, not slept on: flock(1) says so once it holds the lock.
        let said = String(decoding: output.fileHandleForReading.availableDataUntilNewline(), as: UTF8.self)
        try #require(said == "locked\n", "flock(1) said \(said.debugDescription)")

        #expect(SecureFile.removeStaleTemporaryFiles(in: directory, target: "state.json") == 2)
        #expect(!FileManager.default.fileExists(atPath: ours))
        #expect(!FileManager.default.fileExists(atPath: initProcess))
        #expect(FileManager.default.fileExists(atPath: held), "a file whose writer holds its lock was removed")

        // Once the writer is gone, so is its lock: the file is stale.
        try input.fileHandleForWriting.close()
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
        #expect(SecureFile.removeStaleTemporaryFiles(in: directory) == 1)
        #expect(!FileManager.default.fileExists(atPath: held))
    }
}

extension FileHandle {
    /// Reads byte by byte up to and including a newline, or to the end.
    func availableDataUntilNewline() -> Data {
        var line = Data()
        while let byte = try? read(upToCount: 1), !byte.isEmpty {
            line += byte
            if byte == Data([0x0A]) { break }
        }
        return line
    }
}
