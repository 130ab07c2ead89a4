import CBOR
import Foundation
import Testing
import TestSupport
import VirtualAuthenticator

/// Two authenticators on one state file, as the agent and `passkey
/// --no-agent` are: each locks the file and works on the state as the file
/// has it, so neither loses what the other wrote. (Each instance opens the
/// lock file on its own, and flock locks open files, not processes: two
/// instances here contend exactly as two processes do. VaultTests'
/// SharedStateFileTests runs the real programs.)
@Suite("Shared state file", .ownThreads)
struct SharedStateFileTests {
    @Test("credentials registered by either survive the other's writes; the counter never goes back")
    func twoWritersInterleaved() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = VirtualAuthenticatorConfiguration(statePath: directory.appendingPathComponent("state.json").path)
        let agent = try TestPlatform(configuration)
        let cli = try TestPlatform(configuration)

        let first = try agent.register(TestPlatform.makeCredentialParameters(userId: [1], residentKey: true))
        let second = try cli.register(TestPlatform.makeCredentialParameters(userId: [2], residentKey: true))
        let third = try agent.register(TestPlatform.makeCredentialParameters(userId: [3], residentKey: true))
        var last = third.authenticatorData.signCount

        // Each sees the other's discoverable credentials, and the counter rises across both.
        for (platform, credential) in [(cli, first), (agent, second), (cli, third), (agent, first), (cli, second)] {
            let count = try platform.authenticate(TestPlatform.getAssertionParameters(
                allowList: [credential.credentialId])).authenticatorData.signCount
            #expect(count > last, "the signature counter went from \(last) to \(count)")
            last = count
        }

        // A third instance, started afresh, finds all three in the file.
        let later = try TestPlatform(configuration)
        for credential in [first, second, third] {
            let found = try later.authenticate(TestPlatform.getAssertionParameters(allowList: [credential.credentialId]))
            #expect(found.credentialId == credential.credentialId)
            #expect(found.authenticatorData.signCount > last)
            last = found.authenticatorData.signCount
        }
        let listed = try later.authenticate(TestPlatform.getAssertionParameters())
        #expect(listed.numberOfCredentials == 3, "getAssertion counts three discoverable credentials")
    }

    @Test("a PIN set by one is known to the other, and wrong tries count against one budget")
    func pinAndRetriesAreShared() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = VirtualAuthenticatorConfiguration(statePath: directory.appendingPathComponent("state.json").path)
        let one = try TestPlatform(configuration)
        let other = try TestPlatform(configuration)
        #expect(try one.setPIN("135790", version: 2) == 0)
        _ = try other.pinToken("000000", version: 2)
        _ = try one.pinToken("000000", version: 2)
        #expect(try other.pinRetries().retries == 6)
        #expect(try one.pinRetries().retries == 6)
        #expect(try other.pinToken("135790", version: 2).get().count == 32)
        #expect(try one.pinRetries().retries == 8)
    }

    @Test("a temporary file a crashed writer left beside the state is removed at start; a live writer's is kept")
    func staleTemporaryFilesGo() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.json").path
        _ = try TestPlatform(VirtualAuthenticatorConfiguration(statePath: path))
        let stale = directory.appendingPathComponent(".state.json.tmp-4242-0123abcd").path
        let live = directory.appendingPathComponent(".state.json.tmp-4243-4567ef").path
        let unrelated = directory.appendingPathComponent("notes.tmp").path
        for file in [stale, live, unrelated] {
            #expect(FileManager.default.createFile(atPath: file, contents: Data([1]), attributes: [.posixPermissions: 0o600]))
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: file)
        }
        // The live writer holds its temporary file's lock, as SecureFile.write does.
        let writer = open(live, O_RDONLY)
        defer { close(writer) }
        #expect(flock(writer, LOCK_EX) == 0)

        _ = try TestPlatform(VirtualAuthenticatorConfiguration(statePath: path))
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: live))
        #expect(FileManager.default.fileExists(atPath: unrelated))
    }
}
