import Foundation
import Testing
@testable import SecureFiles

@Suite struct SecureFileTests {
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
}
