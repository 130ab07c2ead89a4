import DevServerTestSupport
import Foundation
import Testing
import TestSupport

/// The devserver's data directory: a state file someone else could have put
/// there is refused at start with the reason, and temporary files a crashed
/// server left behind are removed (a live writer's never: see SecureFiles).
@Suite(.ownThreads) struct StateFileTrustTests {
    private func arguments(_ dataDirectory: String) -> [String] {
        ["--listen", "127.0.0.1:0", "--data-dir", dataDirectory, "--rp-id", "localhost",
         "--origin", "https://localhost", "--log-level", "warning"]
    }

    @Test(.timeLimit(.minutes(2))) func anUntrustedStateFileIsRefusedAtStart() async throws {
        let base = try TemporaryDirectory.make(prefix: "devserver-trust")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let dataDirectory = base + "/data"
        let first = try DevServerProcess(arguments: arguments(dataDirectory), directory: base, name: "first")
        _ = try await first.waitForStartup()
        _ = try await first.terminate()
        let state = dataDirectory + "/devserver.json"
        try FileManager.default.copyItem(atPath: state, toPath: base + "/saved.json")

        let kinds: [(reason: String, make: () -> Int32)] = [
            ("it is a FIFO, not a regular file", { unlink(state); return mkfifo(state, 0o600) }),
            ("it is a symbolic link, which is not followed", { unlink(state); return symlink(base + "/saved.json", state) }),
            ("it is owned by uid 65534", { chown(state, 65534, 65534) }),
        ]
        for kind in kinds {
            unlink(state)
            try FileManager.default.copyItem(atPath: base + "/saved.json", toPath: state)
            #expect(kind.make() == 0)
            let server = try DevServerProcess(arguments: arguments(dataDirectory), directory: base, name: "refused")
            #expect(try await server.waitForExit() != 0)
            #expect(server.stderrText.contains(state), "\(server.stderrText)")
            #expect(server.stderrText.contains(kind.reason), "\(server.stderrText)")
        }
    }

    @Test func staleTemporaryFilesAreRemovedAtStart() async throws {
        let base = try TemporaryDirectory.make(prefix: "devserver-temp")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let dataDirectory = base + "/data"
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let stale = dataDirectory + "/.devserver.json.tmp-4242-abc123"
        let unrelated = dataDirectory + "/notes.txt"
        for path in [stale, unrelated] {
            #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8), attributes: [.posixPermissions: 0o600]))
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: path)
        }
        let server = try DevServerProcess(arguments: arguments(dataDirectory), directory: base, name: "cleaner")
        _ = try await server.waitForStartup()
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: unrelated))
        _ = try await server.terminate()
    }
}
