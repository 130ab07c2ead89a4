import Foundation
import Testing
import TestSupport
@testable import SecureFiles

/// The lock shared state files are changed under, and the stale temporary
/// files an interrupted atomic write leaves.
@Suite(.ownThreads) struct FileLockTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("filelock-\(UUID())").path

    @Test func waitingForAHeldLockEndsWithAnErrorNamingIt() throws {
        try SecureDirectory.create(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/state.lock"
        let holder = try FileLock.open(path)
        try holder.lock()
        let waiter = try FileLock.open(path)
        #expect(throws: SecureFileError.notWritable(path: path, reason: "another process has held its lock for more than 0 s")) {
            try waiter.lock(waitingAtMost: 0)
        }
        holder.release()
        try waiter.lock(waitingAtMost: 0)
        #expect(try holder.tryLock() == false)
    }

    @Test func theGenerationTellsEveryHolderThatTheFileChanged() throws {
        try SecureDirectory.create(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let one = try FileLock.open(directory + "/state.lock")
        let other = try FileLock.open(directory + "/state.lock")
        #expect(one.generation() == 0)
        #expect(try one.advanceGeneration() == 1)
        #expect(other.generation() == 1)
        #expect(try other.advanceGeneration() == 2)
        #expect(one.generation() == 2)
    }

    @Test func onlyStaleTemporaryFilesOfOurPatternAreRemoved() throws {
        try SecureDirectory.create(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func make(_ name: String, secondsAgo: TimeInterval = 60) throws -> String {
            let path = directory + "/" + name
            #expect(FileManager.default.createFile(atPath: path, contents: Data([1]), attributes: [.posixPermissions: 0o600]))
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -secondsAgo)], ofItemAtPath: path)
            return path
        }
        let stale = try make(".state.json.tmp-123-9f00aa")
        let otherTarget = try make(".header.tmp-77-1")
        let fresh = try make(".state.json.tmp-124-ab", secondsAgo: 0)
        let locked = try make(".state.json.tmp-125-cd")
        let unrelated = [try make("state.json"), try make(".state.json.tmp-x-1"), try make(".tmp-1-1"),
                         try make("state.json.tmp-1-1"), try make(".state.json.tmp-1-1.bak")]
        // A writer in another process: its own open file and its lock on it.
        let writer = open(locked, O_RDONLY)
        defer { close(writer) }
        #expect(flock(writer, LOCK_EX) == 0)

        #expect(SecureFile.removeStaleTemporaryFiles(in: directory, target: "state.json") == 1)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: otherTarget), "another target's file stays when a target is named")
        #expect(SecureFile.removeStaleTemporaryFiles(in: directory) == 1)
        #expect(!FileManager.default.fileExists(atPath: otherTarget))
        for kept in [fresh, locked] + unrelated { #expect(FileManager.default.fileExists(atPath: kept), "\(kept)") }
    }

    @Test func aWriteLeavesNoTemporaryFileAndItsTemporaryFileMatchesThePattern() throws {
        try SecureFile.write([1], to: directory + "/state.json")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["state.json"])
        #expect(TemporaryName.matches(TemporaryName.make(for: "state.json"), target: "state.json"))
    }
}
