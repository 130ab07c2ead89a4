import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Files in the agent's XDG directories that someone else could have put
/// there — a FIFO (which hung every read, and with enough hung reads every
/// vault method and SIGTERM), a symlink (which redirected the read), another
/// user's file, a file anyone may change — are refused, each with an error
/// naming the file and the reason; the rest keeps working. Through the real
/// agent and CLI. (The tests run as root in CI: chown makes a file another
/// user's.)
@Suite(.ownThreads, .timeLimit(.minutes(5))) struct FileTrustTests {
    /// The four kinds of untrusted file, made at `path` (which holds a good file).
    static let kinds: [(name: String, reason: String, make: @Sendable (_ path: String, _ elsewhere: String) -> Int32)] = [
        ("fifo", "it is a FIFO, not a regular file", { path, _ in unlink(path); return mkfifo(path, 0o600) }),
        ("symlink", "it is a symbolic link, which is not followed", { path, elsewhere in unlink(path); return symlink(elsewhere, path) }),
        ("owner", "it is owned by uid 65534", { path, _ in chown(path, 65534, 65534) }),
        ("mode", "mode 666 lets other users change it", { path, _ in chmod(path, 0o666) }),
    ]

    @Test("an untrusted file in vault/entries fails alone, naming itself; the others read; SIGTERM still stops the agent")
    func untrustedEntries() throws {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        func put(_ account: String) throws -> String {
            let before = Set(agent.entryFiles)
            try agent.put(account, VaultAgent.document(access: "\(account)-token", refresh: nil, expiresIn: 3600,
                                                       endpoint: "https://id.example.org/t"))
            return try #require(Set(agent.entryFiles).subtracting(before).first)
        }
        let goodFile = try put("good")
        var badFiles: [(account: String, file: String, reason: String)] = []
        for kind in Self.kinds {
            let file = try put(kind.name)
            #expect(kind.make(file, goodFile) == 0, "making the \(kind.name) entry")
            badFiles.append((kind.name, file, kind.reason))
        }

        for bad in badFiles {
            // Twice: a FIFO used to hang the reading thread for good, so the second read had none left to run on.
            for _ in 0..<2 {
                let got = try agent.passkey(["token", "get", bad.account])
                #expect(got.status == 7, "\(bad.account): \(got.standardError)")
                #expect(got.standardError.contains(bad.file), "\(bad.account): \(got.standardError)")
                #expect(got.standardError.contains(bad.reason), "\(bad.account): \(got.standardError)")
                #expect(!got.standardOutput.contains("good-token"), "a symlink must not redirect the read")
            }
        }
        let good = try agent.passkey(["token", "get", "good"])
        #expect(good.standardOutput == "good-token\n", "\(good.standardError)")
        let list = try agent.passkey(["token", "list"])
        #expect(list.status == 0, "\(list.standardError)")
        #expect(list.standardOutput.contains("good"))
        for bad in badFiles { #expect(list.standardError.contains(bad.file), "\(list.standardError)") }

        #expect(try #require(agent.harness.process).stop(signal: SIGTERM) == 0, "the agent ends on SIGTERM, not SIGKILL")
    }

    @Test("an untrusted virtual authenticator state file is a clear error, and the agent answers and stops as usual")
    func untrustedAuthenticatorState() throws {
        let agent = try VaultAgent()
        try agent.start()
        let directory = agent.harness.home + "/keys"
        let good = directory + "/good.json"
        let created = try agent.passkey(["webauthn", "create", "--device", "virtual", "--virtual-state", good,
                                         "--origin", "https://example.org"],
                                        input: WebAuthnFixtures.creationOptions())
        #expect(created.status == 0, "\(created.standardError)")

        for kind in Self.kinds {
            // A state file of ours to start from, then made untrusted.
            let path = directory + "/\(kind.name).json"
            try FileManager.default.copyItem(atPath: good, toPath: path)
            #expect(chmod(path, 0o600) == 0)
            #expect(kind.make(path, good) == 0, "making the \(kind.name) state")
            for noAgent in [false, true] {
                let result = try agent.passkey(["webauthn", "get", "--device", "virtual", "--virtual-state", path,
                                                "--origin", "https://example.org"] + (noAgent ? ["--no-agent"] : []),
                                               input: WebAuthnFixtures.requestOptions())
                #expect(result.status != 0, "\(kind.name): \(result.standardOutput)")
                #expect(result.standardError.contains(path), "\(kind.name): \(result.standardError)")
                #expect(result.standardError.contains(kind.reason), "\(kind.name): \(result.standardError)")
            }
        }
        // The agent answers, the good state still works, and SIGTERM ends it.
        let status = try agent.status()
        #expect(status["protocolVersion"] != nil)
        let again = try agent.passkey(["webauthn", "get", "--device", "virtual", "--virtual-state", good,
                                       "--origin", "https://example.org"], input: WebAuthnFixtures.requestOptions())
        #expect(again.status == 0, "\(again.standardError)")
        #expect(try #require(agent.harness.process).stop(signal: SIGTERM) == 0, "the agent ends on SIGTERM, not SIGKILL")
    }
}
