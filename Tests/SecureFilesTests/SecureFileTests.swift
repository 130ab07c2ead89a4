import Foundation
import Testing
import TestSupport
@testable import SecureFiles

@Suite(.ownThreads) struct SecureFileTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("securefiles-\(UUID())").path

    @Test func writesPrivateFilesInPrivateDirectories() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/a/b/secret.json"
        try SecureFile.write(Array("one".utf8), to: path)
        #expect(try SecureFile.read(path, limit: 100) == Array("one".utf8))
        let fileMode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        let dirMode = try FileManager.default.attributesOfItem(atPath: directory + "/a/b")[.posixPermissions] as? Int
        #expect(fileMode == 0o600)
        #expect(dirMode == 0o700)
        try SecureFile.write(Array("two".utf8), to: path)
        #expect(try SecureFile.read(path, limit: 100) == Array("two".utf8))
        // No temporary files are left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/a/b") == ["secret.json"])
    }

    @Test func createNeverReplaces() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/first"
        #expect(try SecureFile.create([1], at: path))
        #expect(try SecureFile.create([2], at: path) == false)
        #expect(try SecureFile.read(path, limit: 10) == [1])
    }

    @Test func missingTooLargeAndUnreadableAreDistinct() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try SecureFile.read(directory + "/none", limit: 10) == nil)
        try SecureFile.write([UInt8](repeating: 7, count: 100), to: directory + "/big")
        #expect(throws: SecureFileError.tooLarge(path: directory + "/big", limit: 10)) {
            try SecureFile.read(directory + "/big", limit: 10)
        }
        #expect(throws: SecureFileError.self) { try SecureFile.read(directory, limit: 10) }
        try SecureFile.remove(directory + "/big")
        try SecureFile.remove(directory + "/big")
        #expect(try SecureFile.read(directory + "/big", limit: 1000) == nil)
    }

    @Test func readPrivateRefusesWhatOthersCanReach() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/secret"
        #expect(try SecureFile.readPrivate(path, limit: 10) == nil)
        try SecureFile.write([1, 2], to: path)
        #expect(try SecureFile.readPrivate(path, limit: 10) == [1, 2])

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let exposed = #expect(throws: SecureFileError.self) { try SecureFile.readPrivate(path, limit: 10) }
        #expect(exposed == .notPrivate(path: path, reason: "mode 644 lets other users read it; run chmod 600 on it"))
        #expect(try SecureFile.read(path, limit: 10) == [1, 2], "plain read lets others read, not write")

        let link = directory + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(throws: SecureFileError.self) { try SecureFile.readPrivate(link, limit: 10) }
        #expect(throws: SecureFileError.notPrivate(path: directory, reason: "it is a directory, not a regular file")) {
            try SecureFile.readPrivate(directory, limit: 10)
        }
    }

    @Test func requirePrivateCreatesOrChecksTheDirectory() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let nested = directory + "/a/b"
        try SecureDirectory.requirePrivate(nested)
        #expect(try FileManager.default.attributesOfItem(atPath: nested)[.posixPermissions] as? Int == 0o700)
        try SecureDirectory.requirePrivate(nested)

        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: nested)
        #expect(throws: SecureFileError.notPrivate(path: nested, reason: "mode 755 lets other users in; run chmod 700 on it")) {
            try SecureDirectory.requirePrivate(nested)
        }
        try SecureFile.write([1], to: directory + "/file")
        #expect(throws: SecureFileError.self) { try SecureDirectory.requirePrivate(directory + "/file") }
    }

    @Test func aFileLockHasOneHolderAtATime() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try SecureDirectory.create(directory)
        let path = directory + "/lock"
        let first = try #require(try FileLock.acquire(path))
        #expect(try FileLock.acquire(path) == nil, "a second open of the file is a second holder")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        first.release()
        let second = try #require(try FileLock.acquire(path))
        #expect(try FileLock.acquire(path) == nil)
        second.release()
        #expect(throws: SecureFileError.self) { try FileLock.acquire(directory + "/missing/lock") }
    }

    @Test func errorsNameTheFailingPath() {
        let error = SecureFileError.notWritable(path: "/a", reason: "Permission denied")
        #expect(error.reason(about: "/a") == "Permission denied")
        #expect(error.reason(about: "/a/b/state.json") == "/a: Permission denied")
        #expect(SecureFileError.tooLarge(path: "/f", limit: 9).reason == "larger than 9 bytes")
    }
}
