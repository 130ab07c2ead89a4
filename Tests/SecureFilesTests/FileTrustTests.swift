import Foundation
import Testing
import TestSupport
@testable import SecureFiles

/// Every read of a file in our directories refuses what someone else could
/// have put there, at once and with the reason: a FIFO (which would hang the
/// reader), a symlink (which would redirect it), another user's file, a file
/// others may change. The tests run as root in CI, so chown makes a file
/// "another user's".
@Suite(.ownThreads) struct FileTrustTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("filetrust-\(UUID())").path

    private func refusal(_ path: String, trust: FileTrust = .ownedByUs) -> SecureFileError? {
        #expect(throws: SecureFileError.self) { try SecureFile.read(path, limit: 100, trust: trust) }
    }

    @Test(.timeLimit(.minutes(1))) func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        try SecureDirectory.create(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/fifo"
        #expect(mkfifo(path, 0o600) == 0)
        #expect(refusal(path) == .notPrivate(path: path, reason: "it is a FIFO, not a regular file"))
    }

    @Test func aSymlinkIsNotFollowedEvenToOurOwnFile() throws {
        try SecureDirectory.create(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try SecureFile.write([1], to: directory + "/target")
        let link = directory + "/link"
        #expect(symlink(directory + "/target", link) == 0)
        #expect(refusal(link) == .notPrivate(path: link, reason: "it is a symbolic link, which is not followed"))
    }

    @Test func anotherUsersFileIsRefused() throws {
        try SecureDirectory.create(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/theirs"
        try SecureFile.write([1], to: path)
        #expect(chown(path, 65534, 65534) == 0, "the tests run as root")
        #expect(refusal(path) == .notPrivate(path: path, reason: "it is owned by uid 65534, not by this user (uid \(geteuid()))"))
    }

    @Test func aFileOthersMayChangeIsRefused() throws {
        try SecureDirectory.create(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/open"
        try SecureFile.write([1], to: path)
        #expect(chmod(path, 0o666) == 0)
        #expect(refusal(path) == .notPrivate(path: path, reason: "mode 666 lets other users change it; run chmod 600 on it"))
        #expect(chmod(path, 0o620) == 0)
        #expect(refusal(path) == .notPrivate(path: path, reason: "mode 620 lets other users change it; run chmod 600 on it"))
        #expect(chmod(path, 0o640) == 0)
        #expect(try SecureFile.read(path, limit: 10, trust: .ownedByUs) == [1], "readable by group: fine for a non-secret")
        #expect(refusal(path, trust: .privateToUs) == .notPrivate(path: path, reason: "mode 640 lets other users read it; run chmod 600 on it"))
    }

    @Test(.timeLimit(.minutes(1))) func aConfigurationFileMayBeASymlinkOrRootsButNeverAFIFOOrChangeableByOthers() throws {
        try SecureDirectory.create(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try SecureFile.write(Array("a = 1".utf8), to: directory + "/dotfiles.toml")
        let link = directory + "/config.toml"
        #expect(symlink(directory + "/dotfiles.toml", link) == 0)
        #expect(try SecureFile.read(link, limit: 100, trust: .configuration) == Array("a = 1".utf8))
        #expect(chmod(directory + "/dotfiles.toml", 0o664) == 0)
        #expect(refusal(link, trust: .configuration) == .notPrivate(path: link, reason: "mode 664 lets other users change it; run chmod 600 on it"))
        #expect(chown(directory + "/dotfiles.toml", 65534, 65534) == 0)
        #expect(chmod(directory + "/dotfiles.toml", 0o644) == 0)
        #expect(refusal(link, trust: .configuration) == .notPrivate(path: link, reason: "it is owned by uid 65534, not by this user (uid \(geteuid()))"))
        #expect(mkfifo(directory + "/fifo.toml", 0o600) == 0)
        #expect(refusal(directory + "/fifo.toml", trust: .configuration)
                == .notPrivate(path: directory + "/fifo.toml", reason: "it is a FIFO, not a regular file"))
    }

    @Test func aFileLargerThanTheLimitIsRefusedBeforeReading() throws {
        try SecureDirectory.create(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/big"
        try SecureFile.write([UInt8](repeating: 1, count: 101), to: path)
        #expect(refusal(path) == .tooLarge(path: path, limit: 100))
    }

    @Test func aLockFileMustBeOursToo() throws {
        try SecureDirectory.create(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try SecureFile.write([], to: directory + "/target")
        #expect(symlink(directory + "/target", directory + "/link.lock") == 0)
        #expect(throws: SecureFileError.self) { try FileLock.open(directory + "/link.lock") }
        #expect(mkfifo(directory + "/fifo.lock", 0o600) == 0)
        #expect(throws: SecureFileError.self) { try FileLock.open(directory + "/fifo.lock") }
    }
}
