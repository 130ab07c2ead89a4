import DevServer
import DevServerBase
import DevServerTestSupport
import Foundation
import IDXDevServer
import Testing
import TestSupport

/// The IDX options on the real `passkey-devserver`: users from --idx-user and
/// a private --idx-users-file (passwords never on the command line), and the
/// users file's rules.
@Suite(.ownThreads) struct IDXProgramTests {
    func withDirectory(_ body: (String) async throws -> Void) async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("devserver-idx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: base) }
        try await body(base.path)
    }

    func writeUsers(_ text: String, to path: String, mode: Int) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    @Test func usersComeFromTheOptionAndAPrivateFile() async throws {
        try await withDirectory { directory in
            let users = directory + "/users"
            try writeUsers("# IDX users\n\nbob:\(IDXHarness.password)\n", to: users, mode: 0o600)
            let server = try DevServerProcess(arguments: ["--listen", "127.0.0.1:0", "--log-level", "warning",
                                                          "--idx-user", "alice", "--idx-users-file", users],
                                              directory: directory, name: "idx")
            let idx = IDXHarness(try await server.waitForStartup())
            let alice = try await idx.identify(try await idx.start().answer, "alice")
            #expect(alice.remediationNames == ["select-authenticator-enroll"], "\(alice)")
            let bob = try await idx.identify(try await idx.start().answer, "bob")
            #expect(bob.remediationNames == ["challenge-authenticator"], "\(bob)")
            let done = try await idx.proceed(bob, "challenge-authenticator", ["credentials": ["passcode": IDXHarness.password]])
            #expect(done.remediationNames == ["select-authenticator-enroll"], "\(done)")
            #expect(try await server.terminate().status == 0)
            #expect(!server.stderrText.contains(IDXHarness.password))
        }
    }

    @Test func aUsersFileOthersCanReadIsRefused() async throws {
        try await withDirectory { directory in
            let users = directory + "/users"
            try writeUsers("bob:\(IDXHarness.password)\n", to: users, mode: 0o644)
            let server = try DevServerProcess(arguments: ["--listen", "127.0.0.1:0", "--idx-users-file", users],
                                              directory: directory, name: "idx-open")
            #expect(try await server.waitForExit() != 0)
            #expect(server.stderrText.contains("not private"), "\(server.stderrText)")
            #expect(!server.stderrText.contains(IDXHarness.password))
        }
    }

    @Test func theUsersFileIsReadStrictly() throws {
        let users = try IDXUserRegistration.parseUsersFile("alice\r\n# comment\n\nbob:p:w\n")
        #expect(users == [try IDXUserRegistration(username: "alice"), try IDXUserRegistration(username: "bob", password: "p:w")])
        // Spaces around a name, an empty password, a control character.
        for bad in [" alice\n", "alice\nalice:\n", "a\u{1}b\n"] {
            #expect(throws: DevServerError.self, "\(bad.debugDescription)") { try IDXUserRegistration.parseUsersFile(bad) }
        }
        #expect(throws: DevServerError.self) { try IDXUserRegistration(username: "bo:b") }
    }
}
